/** The webhook events a tenant can subscribe to (spec section 2), shared by page and server. */
export const WEBHOOK_EVENTS = [
  "message.delivered",
  "message.read",
  "message.failed",
  "message.received",
  "conversation.handover",
  "flow.completed",
  "partner.settlement.paid",
  "payment_request.paid",
  "payment_request.failed",
  "payment_request.expired",
  "payment_request.cancelled",
] as const;
