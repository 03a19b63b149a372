/**
 * The automations domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { automationFigures } from "./analytics";
export type { AutomationFigures } from "./analytics";
export { readHandoverBody } from "./handover";
export { flowPaymentClosed } from "./flows/payment";
export { queueOrderPayments, saveOrderPayment } from "./order-payment";
