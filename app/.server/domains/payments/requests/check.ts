import { sql } from "drizzle-orm";
import { announceRequestClosed } from "./closed";
import { db, rawQuery } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { Job } from "../../../infrastructure/jobs/queue";
import { shortcodeForOrganization } from "../shortcodes-access";
import { queryPrompt } from "./callbacks";
import { lockRequest, unfinishedAttempt } from "./lock";
import { settleAttempt, type NotifyJob } from "./settle";
import { answer, customerOfRequest, tellCustomer } from "./tell";
import { customerLocale, failureWords, kes } from "./words";
import { emitWebhookEvent } from "../../webhooks-out";
import { logConversationEvents } from "../../messaging";
import { m } from "~/paraglide/messages";

/** A prompt nobody answered in this long has failed (as billing's top-ups give up). */
export const PROMPT_GIVE_UP_MS = 10 * 60_000;

/**
 * The query job: prompts whose callback has not settled them are asked about (Safaricom's "being
 * processed" keeps them pending), settled through the same lock as a callback; one Safaricom still
 * calls unanswered after ten minutes is failed (1037), and one whose push never got an answer
 * (in doubt, no CheckoutRequestID) is closed so the customer can try again.
 */
export async function checkPendingPrompts(now = new Date(), limit = 20) {
  const due = await rawQuery<{
    id: string;
    organization_id: string;
    request_id: string;
    checkout_request_id: string;
    created_at: string;
    shortcode_id: string;
  }>(
    `update payment_attempts a set next_check_at = $1::timestamptz + make_interval(secs => least(300, 15 * (checks + 1))), checks = checks + 1
     from payment_requests r
     where r.id = a.request_id and a.id in (select id from payment_attempts where state = 'pending' and checkout_request_id is not null
                  and next_check_at <= $1 order by next_check_at limit $2 for update skip locked)
     returning a.id, a.organization_id, a.request_id, a.checkout_request_id, a.created_at, r.shortcode_id`,
    [now.toISOString(), limit],
  );
  let settled = 0;
  for (const attempt of due) {
    const shortcode = await shortcodeForOrganization(attempt.organization_id, attempt.shortcode_id);
    if (!shortcode) continue;
    const query = await queryPrompt(shortcode, attempt.checkout_request_id);
    if (query?.state === "done") {
      await settleAttempt(
        attempt.checkout_request_id,
        query.resultCode === 0
          ? { kind: "paid", receipt: null, amountKes: null, phone: null, at: null }
          : { kind: "failed", code: String(query.resultCode), desc: query.resultDesc },
      );
      settled++;
    } else if (query && now.getTime() - new Date(attempt.created_at).getTime() > PROMPT_GIVE_UP_MS) {
      await settleAttempt(attempt.checkout_request_id, { kind: "failed", code: "1037", desc: "No answer from the phone" });
      settled++;
    }
  }
  await rawQuery(
    `update payment_attempts set state = 'failed', result_code = coalesce(result_code, 'unsent'), finished_at = $1::timestamptz, next_check_at = null
     where state in ('pending', 'in_doubt') and checkout_request_id is null and created_at < $1::timestamptz - interval '10 minutes'`,
    [now.toISOString()],
  );
  return settled;
}

/** The expiry job: open requests past their time close, each under its lock (one with a prompt still ringing waits). */
export async function expireRequests(limit = 100) {
  const due = await rawQuery<{ id: string }>(
    `select id from payment_requests where status = 'open' and expires_at <= now() order by expires_at limit $1`,
    [limit],
  );
  let expired = 0;
  for (const { id } of due)
    await db().transaction(async (tx) => {
      const request = await lockRequest(tx, id);
      if (!request || request.status !== "open" || !request.expired || (await unfinishedAttempt(tx, id))) return;
      await tx.execute(
        sql`update payment_requests set status = 'expired', phone_asked_at = null, closed_at = now(), updated_at = now() where id = ${id}`,
      );
      await announceRequestClosed(tx, { organizationId: request.organization_id, requestId: id, outcome: "expired" });
      if (request.conversation_id)
        await logConversationEvents(tx, [
          { organizationId: request.organization_id, conversationId: request.conversation_id, kind: "conversation" },
        ]);
      await emitWebhookEvent(tx, {
        organizationId: request.organization_id,
        type: "payment_request.expired",
        data: { id, amountKes: Number(request.amount_kes), reference: request.reference },
      });
      expired++;
    });
  return expired;
}

/** The notify job: the customer's receipt, or why the payment failed with a "Try again" button. */
export async function runPaymentNotify(jobs: readonly Job<NotifyJob>[]) {
  for (const { payload } of jobs) {
    const customer = await customerOfRequest(payload.organizationId, payload.requestId);
    if (!customer) continue;
    const locale = customerLocale(customer.language);
    const [request] = await queryRows<{
      amount_kes: number;
      description: string;
      paid_receipt: string | null;
      paid_amount_kes: number | null;
      status: string;
    }>(
      db(),
      sql`select amount_kes, description, paid_receipt, paid_amount_kes, status from payment_requests where id = ${payload.requestId}`,
    );
    if (!request) continue;
    if (payload.what === "paid") {
      await tellCustomer(
        customer,
        answer(
          m.payreq_paid_receipt(
            {
              amount: kes(Number(request.paid_amount_kes ?? request.amount_kes), locale),
              description: request.description,
              receipt: request.paid_receipt ?? "—",
            },
            { locale },
          ),
          locale,
        ),
      );
      continue;
    }
    if (payload.what === "cancelled") {
      if (request.status === "cancelled")
        await tellCustomer(
          customer,
          answer(
            m.payreq_cancelled_told({ amount: kes(Number(request.amount_kes), locale), description: request.description }, { locale }),
            locale,
          ),
        );
      continue;
    }
    // A failure told only while nothing else has happened since (paid meanwhile, or a newer prompt).
    if (request.status !== "open") continue;
    const [attempt] = await queryRows<{ result_code: string | null; result_desc: string | null; newer: boolean }>(
      db(),
      sql`select result_code, result_desc, exists (select 1 from payment_attempts n where n.request_id = a.request_id and n.created_at > a.created_at) as newer
          from payment_attempts a where a.id = ${payload.attemptId ?? null}`,
    );
    if (!attempt || attempt.newer) continue;
    const code = attempt.result_code !== null && /^\d+$/.test(attempt.result_code) ? Number(attempt.result_code) : null;
    await tellCustomer(
      customer,
      answer(failureWords(code, attempt.result_desc ?? "", Number(request.amount_kes), locale), locale, payload.requestId),
    );
  }
}
