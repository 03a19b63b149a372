/**
 * The payments domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */

// ---- Payment requests (issue 76, helper B; decision 137) ----
export { claimPaymentReplies, PAYMENT_REQUEST_TAPS_QUEUE } from "./requests/taps";
export { createPaymentRequest } from "./requests/create";
export { checkRequestInput } from "./requests/input";
export type { RequestActor, RequestOrigin } from "./requests/create";
export { paymentRequestById, listPaymentRequests, shortcodeChoices } from "./requests/views";
export type { PaymentRequestView } from "./requests/views";
export { receivePaymentStk, validatePaymentC2b, confirmPaymentC2b, registerPaymentC2bUrls } from "./requests/callbacks";
export { registerPaymentRequestJobs } from "./requests/jobs";
// ---- end of payment requests ----
