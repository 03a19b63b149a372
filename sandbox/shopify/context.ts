import type { CallLog } from "../call-log";
import type { FaultQueue, SlowAnswers } from "../faults";
import type { ShopifyState } from "./state";
import type { WebhookSender } from "./webhooks";

export interface ResolvedOptions {
  clientId: string;
  clientSecret: string;
  /** The app's name on the install page. */
  appName: string;
  publicPath: string;
  /** The Admin API version webhooks are sent with unless a subscription says otherwise. */
  apiVersion: string;
  slowMs: number;
  /**
   * Where the app's configuration sends the mandatory privacy topics (shopify.app.toml's
   * `compliance_topics` and its `uri`): set for the app, not subscribed per shop.
   */
  complianceAddress: string | null;
  now: () => number;
}

export interface ShopifyContext {
  options: ResolvedOptions;
  state: ShopifyState;
  faults: FaultQueue;
  slow: SlowAnswers;
  calls: CallLog;
  sender: WebhookSender;
}
