import type { z } from "zod";
import { cancelPaymentRequest, createPaymentRequest, listPaymentRequests, paymentRequestById } from "../../domains/payments";
import { isRefusal } from "../../infrastructure/refusal";
import { ApiProblem, refusalProblem } from "./problem";
import type { PaymentRequestCreate, PaymentRequestsQuery } from "./payment-request-schemas";
import type { ApiCaller } from "./caller";

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

/** The cancel refusals' codes as the API's catalogue names them (the domain's are the inbox's). */
const CANCEL_CODES: Record<string, string> = { not_open: "payment_request_closed", prompt_on_phone: "prompt_on_phone" };

/**
 * POST /api/v1/payment-requests/{id}/cancel: closed as the inbox's Cancel request does (decision
 * 144): the webhook once, the customer told not to pay. A second cancel is 409
 * payment_request_closed, as a campaign's is (the same Idempotency-Key replays the first answer).
 */
export async function cancelApiPaymentRequest(organizationId: string, id: string, caller: ApiCaller) {
  try {
    // The activity log's line names the key by its prefix (never its secret) and keeps the caller's address (decision 155).
    return await cancelPaymentRequest({ organizationId, userId: null }, id, { via: "api", keyPrefix: caller.keyPrefix, meta: caller.meta });
  } catch (error) {
    if (isRefusal(error, "payment") && error.status === 404) throw new ApiProblem(404, "not_found", PAYMENT_REQUEST_NOT_FOUND);
    if (isRefusal(error, "payment") && CANCEL_CODES[error.code]) throw new ApiProblem(409, CANCEL_CODES[error.code]!, error.message);
    throw error;
  }
}
