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
export { noteShortcodeResult, registerShortcodeC2bUrls, statusDetailInWords, testShortcode } from "./connection-test";
export type { ConnectionFailure, ConnectionResult } from "./connection-test";

// Payment requests (decision 137)
export { claimPaymentReplies, PAYMENT_REQUEST_TAPS_QUEUE } from "./requests/taps";
export { createPaymentRequest } from "./requests/create";
export { cancelPaymentRequest } from "./requests/cancel";
export { matchReceipt, unmatchedReceipts, UNMATCHED_SHOWN } from "./requests/receipts";
export type { UnmatchedReceipt } from "./requests/receipts";
export { requestPaymentFromContact } from "./requests/contact";
export { onPaymentRequestClosed } from "./requests/closed";
export type { ClosedRequest } from "./requests/closed";
export { checkRequestInput } from "./requests/input";
export type { RequestActor, RequestOrigin } from "./requests/create";
export { paymentRequestById, listPaymentRequests, shortcodeChoices } from "./requests/views";
export type { PaymentRequestView } from "./requests/views";
export { receivePaymentStk, validatePaymentC2b, confirmPaymentC2b } from "./requests/callbacks";
export { registerPaymentRequestJobs } from "./requests/jobs";
export { PAYMENT_TEMPLATE_NAME, paymentTemplateInput, paymentTemplateStates, submitPaymentTemplate } from "./requests/template";
export type { PaymentTemplateState } from "./requests/template";
