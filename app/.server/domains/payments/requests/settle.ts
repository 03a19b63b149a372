import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { log } from "../../../infrastructure/log";
import { logConversationEvents } from "../../messaging";
import { emitWebhookEvent } from "../../webhooks-out";
import { noteShortcodeResult } from "../connection-test";
import { announceRequestClosed } from "./closed";
import { lockRequest, type AttemptRow, type LockedRequest } from "./lock";

/** The job that tells the customer what became of their payment (their receipt, or why it failed). */
export const PAYMENT_REQUEST_NOTIFY_QUEUE = "payments.request-notify";
export interface NotifyJob {
  requestId: string;
  organizationId: string;
  what: "paid" | "failed" | "cancelled";
  attemptId?: string;
}

export type StkOutcome =
  | { kind: "paid"; receipt: string | null; amountKes: number | null; phone: string | null; at: Date | null }
  | { kind: "failed"; code: string; desc: string };

/** In the changing transaction: the thread's card redrawn live, and the webhook out. */
async function announce(
  tx: Executor,
  request: LockedRequest,
  type: "payment_request.paid" | "payment_request.failed" | "payment_request.expired",
  data: Record<string, unknown>,
) {
  if (request.conversation_id)
    await logConversationEvents(tx, [
      { organizationId: request.organization_id, conversationId: request.conversation_id, kind: "conversation" },
    ]);
  await emitWebhookEvent(tx, {
    organizationId: request.organization_id,
    type,
    data: { id: request.id, amountKes: Number(request.amount_kes), reference: request.reference, ...data },
  });
}

/**
 * Marks the request paid, under its lock, once: a request already paid keeps its first payment (a
 * second one is logged for the team, not recorded over it). An amount other than the one asked is
 * recorded and flagged. Answers whether this call paid it.
 */
export async function markPaid(
  tx: Executor,
  request: LockedRequest,
  paid: { via: "stk" | "c2b"; receipt: string | null; amountKes: number | null; phone: string | null; at: Date | null },
): Promise<boolean> {
  if (request.status === "paid") {
    if (paid.receipt && paid.receipt !== request.paid_receipt)
      log().warn({ requestId: request.id, receipt: paid.receipt, first: request.paid_receipt }, "a second payment of a paid request");
    return false;
  }
  const amount = paid.amountKes ?? Number(request.amount_kes);
  const mismatch = amount !== Number(request.amount_kes);
  await tx.execute(sql`
    update payment_requests
    set status = 'paid', paid_via = ${paid.via}, paid_receipt = ${paid.receipt}, paid_amount_kes = ${Math.round(amount)},
        paid_phone = ${paid.phone}, paid_at = ${(paid.at ?? new Date()).toISOString()}::timestamptz, amount_mismatch = ${mismatch},
        phone_asked_at = null, closed_at = now(), updated_at = now()
    where id = ${request.id}`);
  await announceRequestClosed(tx, { organizationId: request.organization_id, requestId: request.id, outcome: "paid" });
  await announce(tx, request, "payment_request.paid", {
    receipt: paid.receipt,
    paidAmountKes: amount,
    amountMismatch: mismatch,
    via: paid.via,
  });
  await enqueueJob(
    PAYMENT_REQUEST_NOTIFY_QUEUE,
    { requestId: request.id, organizationId: request.organization_id, what: "paid" } satisfies NotifyJob,
    {
      executor: tx,
    },
  );
  if (mismatch)
    log().warn({ requestId: request.id, asked: request.amount_kes, paid: amount }, "payment request paid with another amount: flagged");
  return true;
}

/**
 * What M-Pesa said of one STK push (its callback, or Jumbe's status query), applied once under the
 * request's lock: a repeat, or an answer after the attempt was settled, changes nothing (a receipt
 * the first answer lacked is kept). Answers "settled", "repeat" or "unknown" (not one of ours).
 */
export async function settleAttempt(checkoutRequestId: string, outcome: StkOutcome, shortcodeId?: string) {
  const settled = await settleAttemptOnce(checkoutRequestId, outcome, shortcodeId);
  // 2028: the shortcode is set up as the wrong kind (a till as a paybill): its settings page says so (decision 136).
  if (settled === "settled" && outcome.kind === "failed" && outcome.code === "2028") {
    const [shortcode] = await queryRows<{ id: string; kind: "paybill" | "till" }>(
      db(),
      sql`select s.id, s.kind from payment_attempts a join payment_requests r on r.id = a.request_id
          join mpesa_shortcodes s on s.id = r.shortcode_id where a.checkout_request_id = ${checkoutRequestId}`,
    );
    if (shortcode) await noteShortcodeResult(shortcode, 2028);
  }
  return settled;
}

function settleAttemptOnce(checkoutRequestId: string, outcome: StkOutcome, shortcodeId?: string) {
  return db().transaction(async (tx) => {
    const found = await queryRows<{ request_id: string }>(
      tx,
      sql`
      select a.request_id from payment_attempts a join payment_requests r on r.id = a.request_id
      where a.checkout_request_id = ${checkoutRequestId} and (${shortcodeId ?? null}::uuid is null or r.shortcode_id = ${shortcodeId ?? null}::uuid)`,
    );
    if (!found[0]) return "unknown" as const;
    const request = (await lockRequest(tx, found[0].request_id))!;
    const [attempt] = await queryRows<AttemptRow>(
      tx,
      sql`select id, request_id, phone, checkout_request_id, state, created_at from payment_attempts where checkout_request_id = ${checkoutRequestId}`,
    );
    if (attempt!.state === "paid" || attempt!.state === "failed") {
      if (attempt!.state === "paid" && outcome.kind === "paid" && outcome.receipt && !request.paid_receipt)
        await tx.execute(sql`
          update payment_requests set paid_receipt = ${outcome.receipt}, paid_amount_kes = coalesce(${outcome.amountKes}, paid_amount_kes),
                 amount_mismatch = coalesce(${outcome.amountKes}, paid_amount_kes) <> amount_kes, updated_at = now()
          where id = ${request.id} and paid_receipt is null and paid_via = 'stk'`);
      return "repeat" as const;
    }
    if (outcome.kind === "paid") {
      await tx.execute(sql`
        update payment_attempts set state = 'paid', result_code = '0', result_desc = 'Paid', finished_at = now(), next_check_at = null
        where id = ${attempt!.id}`);
      await markPaid(tx, request, {
        via: "stk",
        receipt: outcome.receipt,
        amountKes: outcome.amountKes,
        phone: outcome.phone ?? attempt!.phone,
        at: outcome.at,
      });
      return "settled" as const;
    }
    await tx.execute(sql`
      update payment_attempts set state = 'failed', result_code = ${outcome.code}, result_desc = ${outcome.desc}, finished_at = now(), next_check_at = null
      where id = ${attempt!.id}`);
    if (request.status === "open") {
      await announce(tx, request, "payment_request.failed", { resultCode: outcome.code, resultDesc: outcome.desc });
      await enqueueJob(
        PAYMENT_REQUEST_NOTIFY_QUEUE,
        { requestId: request.id, organizationId: request.organization_id, what: "failed", attemptId: attempt!.id } satisfies NotifyJob,
        { executor: tx },
      );
    }
    return "settled" as const;
  });
}
