import type { z } from "zod";
import { createPaymentRequest, listPaymentRequests, paymentRequestById } from "../../domains/payments";
import { ApiProblem, refusalProblem } from "./problem";
import type { PaymentRequestCreate, PaymentRequestsQuery } from "./payment-request-schemas";

export const PAYMENT_REQUEST_NOT_FOUND = "No payment request of yours has this id.";

/** POST /api/v1/payment-requests: asked in the conversation, inside its 24-hour window. */
export async function createApiPaymentRequest(
  organizationId: string,
  body: z.output<typeof PaymentRequestCreate>,
  idempotencyKey: string | undefined,
  apiKeyId: string | null,
) {
  const { conversationId, ...input } = body;
  try {
    return await createPaymentRequest({ organizationId, userId: null }, conversationId, input, {
      source: "api",
      sourceId: apiKeyId,
      idempotencyKey: idempotencyKey ?? null,
    });
  } catch (error) {
    throw refusalProblem(error, "payment", "send");
  }
}

export async function getApiPaymentRequest(organizationId: string, id: string) {
  const found = await paymentRequestById(organizationId, id);
  if (!found) throw new ApiProblem(404, "not_found", PAYMENT_REQUEST_NOT_FOUND);
  return found;
}

export async function listApiPaymentRequests(organizationId: string, query: z.output<typeof PaymentRequestsQuery>) {
  const data = await listPaymentRequests(organizationId, {
    conversationId: query.conversationId,
    status: query.status,
    limit: query.limit,
  });
  return { data, hasMore: false };
}
