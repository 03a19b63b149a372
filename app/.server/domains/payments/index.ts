/**
 * Payments (issue 76): the organisation's own M-Pesa shortcodes, what other domains may use of them.
 * Settings → Payments manages them (shortcodes.ts, connection-test.ts); payment requests reach one
 * through shortcodes-access.ts.
 */
export { darajaForShortcode, shortcodeBaseUrl, shortcodeByCallbackToken, shortcodeForOrganization } from "./shortcodes-access";
export type { MpesaShortcode } from "./shortcodes-access";
export {
  addShortcode,
  listShortcodes,
  makeDefaultShortcode,
  ownShortcode,
  removeShortcode,
  shortcodeCallbackUrls,
  updateShortcode,
} from "./shortcodes";
export type { PaymentsActor, ShortcodeView } from "./shortcodes";
export { noteShortcodeResult, statusDetailInWords, testShortcode } from "./connection-test";
export type { ConnectionFailure, ConnectionResult } from "./connection-test";
