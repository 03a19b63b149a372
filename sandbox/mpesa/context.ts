import type { C2bDesk } from "./c2b";
import type { CallbackPoster } from "./deliveries";
import type { PayoutDesk } from "./payouts";
import type { PromptDesk } from "./prompts";
import type { ShortcodeBook } from "./shortcodes";
import type { TokenDesk } from "./tokens";
import type { MpesaSandbox, ResolvedOptions } from "./types";

/** What the sandbox's routers share. */
export interface MpesaContext {
  options: ResolvedOptions;
  tokens: TokenDesk;
  shortcodes: ShortcodeBook;
  prompts: PromptDesk;
  c2b: C2bDesk;
  payouts: PayoutDesk;
  poster: CallbackPoster;
  sandbox: MpesaSandbox;
}
