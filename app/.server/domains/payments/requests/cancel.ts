import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { englishOf, words } from "../../../infrastructure/words/said";
import { recordActivity } from "../../activity";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { logConversationEvents } from "../../messaging";
import { emitWebhookEvent } from "../../webhooks-out";
import { announceRequestClosed } from "./closed";
import { refusePaymentRequest } from "./input";
import { lockRequest, unfinishedAttempt } from "./lock";
import { PAYMENT_REQUEST_NOTIFY_QUEUE, type NotifyJob } from "./settle";
import { paymentRequestById, type PaymentRequestView } from "./views";
import type { RequestActor } from "./create";
import { m } from "~/paraglide/messages";

/**
 * Where a cancel came from, for the activity log: the inbox's card (a member) or the public API, named
 * by its key's prefix (never the secret: decision 155); `meta` is the caller's address and user agent.
 */
export type CancelledFrom = { via: "inbox"; meta?: RequestMeta } | { via: "api"; keyPrefix: string; meta: RequestMeta };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A member takes back an open request, under its lock: closed as cancelled, its order (if any)
 * freed, the thread's card redrawn, `payment_request.cancelled` sent out, and the customer told not
 * to pay. Refused while a prompt is on the customer's phone (their PIN could be going in: the answer
 * decides), and once it is paid or closed. Money that still arrives (a paybill payment by hand with
 * the reference) is recorded: a payment is never thrown away.
 */
export async function cancelPaymentRequest(
  actor: RequestActor,
  requestId: string,
  from: CancelledFrom = { via: "inbox" },
): Promise<PaymentRequestView> {
  if (!UUID.test(requestId)) throw refusePaymentRequest(404, "not_found", m.payreq_refusal_not_found(), "requestId");
  await db().transaction(async (tx) => {
    const request = await lockRequest(tx, requestId, actor.organizationId);
    if (!request) throw refusePaymentRequest(404, "not_found", m.payreq_refusal_not_found(), "requestId");
    if (request.status !== "open") throw refusePaymentRequest(409, "not_open", m.payreq_refusal_not_open(), "requestId");
    if (await unfinishedAttempt(tx, request.id))
      throw refusePaymentRequest(409, "prompt_on_phone", m.payreq_refusal_prompt_on_phone(), "requestId");
    await tx.execute(sql`
      update payment_requests set status = 'cancelled', phone_asked_at = null, closed_at = now(), updated_at = now()
      where id = ${request.id}`);
    await announceRequestClosed(tx, { organizationId: request.organization_id, requestId: request.id, outcome: "cancelled" });
    if (request.conversation_id)
      await logConversationEvents(tx, [
        { organizationId: request.organization_id, conversationId: request.conversation_id, kind: "conversation" },
      ]);
    await emitWebhookEvent(tx, {
      organizationId: request.organization_id,
      type: "payment_request.cancelled",
      data: { id: request.id, amountKes: Number(request.amount_kes), reference: request.reference },
    });
    await recordCancel(tx, actor, request, from);
    await enqueueJob(
      PAYMENT_REQUEST_NOTIFY_QUEUE,
      { requestId: request.id, organizationId: request.organization_id, what: "cancelled" } satisfies NotifyJob,
      { executor: tx },
    );
  });
  return (await paymentRequestById(actor.organizationId, requestId))!;
}

/** The activity log's line: who (the member, or the API key by its prefix), which request and for how much, from where. */
async function recordCancel(
  tx: Executor,
  actor: RequestActor,
  request: { organization_id: string; reference: string; amount_kes: number },
  from: CancelledFrom,
) {
  const inputs = { reference: request.reference, amount: { kes: Number(request.amount_kes) * 100 } };
  const detail =
    from.via === "api"
      ? words("app_activity_detail_payreq_cancelled_api_key", { ...inputs, prefix: from.keyPrefix })
      : words("app_activity_detail_payreq_cancelled_inbox", inputs);
  await recordActivity(
    {
      organizationId: request.organization_id,
      userId: actor.userId,
      type: "billing",
      status: "success",
      action: "Payment request cancelled",
      details: englishOf(detail),
      meta: from.meta,
    },
    tx,
  );
}
