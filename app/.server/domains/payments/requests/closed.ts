import type { Executor } from "../../../infrastructure/db/client";
import { processState } from "../../../infrastructure/process-state";

/**
 * What higher domains do when a payment request closes (the shop marks the order it asks for paid,
 * or frees it for another request when it expired or was cancelled). Payments sits below them and does not know
 * them: the composition root registers each reaction by name (composition/domain-events.ts), and
 * each runs in the transaction that closes the request, under its lock, so an order is paid exactly
 * when its request is.
 */
export interface ClosedRequest {
  organizationId: string;
  requestId: string;
  outcome: "paid" | "expired" | "cancelled";
}
type Reaction = (tx: Executor, closed: ClosedRequest) => Promise<unknown>;
const reactions = processState("payments.request-closed", () => new Map<string, Reaction>());

export function onPaymentRequestClosed(name: string, reaction: Reaction) {
  reactions.set(name, reaction);
}

export async function announceRequestClosed(tx: Executor, closed: ClosedRequest) {
  for (const reaction of reactions.values()) await reaction(tx, closed);
}
