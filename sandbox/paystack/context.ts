import type { PaymentDesk } from "./payments";
import type { TransactionStore } from "./state";
import type { WebhookSender } from "./webhooks";

export interface ResolvedOptions {
  secretKey: string;
  publicPath: string;
  merchantName: string;
  /** The origin authorization URLs use; by default the one each initialize request came to. */
  publicOrigin?: () => string;
  now: () => number;
}

export interface PaystackContext {
  options: ResolvedOptions;
  store: TransactionStore;
  sender: WebhookSender;
  desk: PaymentDesk;
  domain: "test" | "live";
}
