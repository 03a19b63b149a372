import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { DarajaError, darajaClient, parseB2cResult, type B2cResult } from "../../infrastructure/clients/daraja";
import { fromSafaricom } from "../billing";
import { log } from "../../infrastructure/log";
import { m } from "~/paraglide/messages";
import { englishOf, words } from "../../infrastructure/words/said";
import { storedSentences } from "../../infrastructure/words/stored";
import { emitWebhookEvent } from "../webhooks-out";
import { Refusal } from "../../infrastructure/refusal";

/**
 * Settlement payouts by M-Pesa B2C (issue 46, decision 086). One row an attempt: its
 * OriginatorConversationID is `jumbe-payout-<id>`, so the job may send it again after a timeout in
 * doubt without paying twice (Daraja pays an id once). Above the approval threshold an attempt waits
 * for a second administrator. The outcome arrives on an unsigned ResultURL whose address carries a
 * secret derived from the attempt (HMAC with SESSION_SECRET, nothing stored); only a result from
 * Safaricom's addresses (MPESA_TRUSTED_IPS) is believed, and an attempt without one is asked about
 * with the transaction status query. A new attempt is made only after the last one's failure was
 * believed, so a forged "failed" can never lead to paying twice.
 */

export const PAYOUT_QUEUE = "partners.payout";
export const PAYOUT_STATUS_QUEUE = "partners.payout-status";
/** M-Pesa B2C pays whole shillings from 10 to 150,000. */
export const B2C_MIN_CENTS = 10_00;
export const B2C_MAX_CENTS = 150_000_00;
/** Default of PARTNER_PAYOUT_APPROVAL_THRESHOLD_CENTS: payouts above KES 100,000 need a second administrator. */
export const DEFAULT_APPROVAL_THRESHOLD_CENTS = 100_000_00;
/** An accepted payout without a result is asked about this long after, then backing off. */
export const FIRST_STATUS_QUERY_AFTER_MS = 2 * 60_000;

/** A payout refused, nothing changed: the programme's one Refusal (a bad bank reference is about its field). */
const refusePayout = (status: 404 | 409 | 422, code: string, message: string) =>
  new Refusal({ domain: "partner", status, code, message, ...(code === "reference" ? { field: "reference" } : {}) });

export interface PayoutRow {
  id: string;
  settlement_id: string;
  attempt: number;
  status: string;
  amount_cents: string;
  phone: string | null;
  originator_conversation_id: string;
  requested_by: string | null;
  approved_by: string | null;
  receipt: string | null;
  result_code: number | null;
  result_desc: string | null;
  checks: number;
}

/** An id the database could look up: anything else is no settlement or payout (404, never a database error). */
const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/** The secret in an attempt's result addresses: derived, so nothing secret is stored. */
export function payoutSecret(payoutId: string) {
  return createHmac("sha256", env().SESSION_SECRET).update(`b2c-result:${payoutId}`).digest("base64url");
}

function secretOk(payoutId: string, secret: string) {
  const a = Buffer.from(payoutSecret(payoutId));
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where Daraja posts an attempt's result (`kind`: result, timeout or status). */
export function payoutCallbackUrl(payoutId: string, kind: "result" | "timeout" | "status") {
  return `${env().MPESA_CALLBACK_BASE_URL}/webhooks/mpesa/b2c/${payoutId}/${payoutSecret(payoutId)}/${kind}`;
}

/**
 * What the caller writes in the payout's own transaction once the change is made (the
 * administrator's audit record): it commits with the settlement's new status, or neither does.
 */
export type InTransaction<T> = (tx: Executor, done: T) => Promise<void>;

/**
 * Starts paying a settlement by M-Pesa: a new attempt (the first, or after a failure Jumbe believed),
 * queued at once or, above `approvalThresholdCents`, waiting for a second administrator.
 */
export async function startPayout(
  actor: { userId: string },
  settlementId: string,
  options: { approvalThresholdCents?: number; audit?: InTransaction<PayoutRow> } = {},
): Promise<PayoutRow> {
  const threshold = options.approvalThresholdCents ?? env().PARTNER_PAYOUT_APPROVAL_THRESHOLD_CENTS;
  if (!isUuid(settlementId)) throw refusePayout(404, "not_found", m.admin_payout_settlement_not_found());
  return db().transaction(async (tx) => {
    const settlement = await queryRow<{
      id: string;
      status: string;
      payable_cents: string;
      payout_method: string;
      mpesa_phone: string | null;
    }>(
      tx,
      sql`select s.id, s.status, s.payable_cents::text, s.payout_method, p.mpesa_phone
          from partner_settlements s join partners p on p.id = s.partner_id
          where s.id = ${settlementId} for update of s`,
    );
    if (!settlement) throw refusePayout(404, "not_found", m.admin_payout_settlement_not_found());
    if (settlement.payout_method !== "mpesa" || !settlement.mpesa_phone) throw refusePayout(422, "not_mpesa", m.admin_payout_by_bank());
    if (settlement.status !== "pending" && settlement.status !== "failed") throw refusePayout(409, "in_hand", m.admin_payout_in_hand());
    // What the statement says is paid: whole shillings, the cents carried to the next settlement (settleMonth).
    const amountCents = Number(settlement.payable_cents);
    if (amountCents < B2C_MIN_CENTS || amountCents > B2C_MAX_CENTS) throw refusePayout(422, "amount", m.admin_payout_amount_range());
    const last = await queryRow<{ attempt: number }>(
      tx,
      sql`select coalesce(max(attempt), 0)::int as attempt from partner_payouts where settlement_id = ${settlementId}`,
    );
    const id = randomUUID();
    const status = amountCents > threshold ? "awaiting_approval" : "requested";
    const [payout] = await queryRows<PayoutRow>(
      tx,
      sql`insert into partner_payouts (id, settlement_id, attempt, method, amount_cents, status, originator_conversation_id, phone, requested_by)
          values (${id}, ${settlementId}, ${(last?.attempt ?? 0) + 1}, 'mpesa', ${amountCents}, ${status}, ${`jumbe-payout-${id}`},
                  ${settlement.mpesa_phone}, ${actor.userId})
          returning *, amount_cents::text`,
    );
    await tx.execute(sql`update partner_settlements set status = 'processing', failure_reason = null where id = ${settlementId}`);
    if (status === "requested") await enqueueJob(PAYOUT_QUEUE, { payoutId: id }, { executor: tx, uniqueKey: `payout:${id}` });
    await options.audit?.(tx, payout!);
    return payout!;
  });
}

/** The second administrator's approval (never the one who asked): the attempt is queued. */
export async function approvePayout(actor: { userId: string }, payoutId: string, audit?: InTransaction<PayoutRow>) {
  if (!isUuid(payoutId)) throw refusePayout(404, "not_found", m.admin_payout_not_found());
  await db().transaction(async (tx) => {
    const payout = await queryRow<PayoutRow>(tx, sql`select * from partner_payouts where id = ${payoutId} for update`);
    if (!payout) throw refusePayout(404, "not_found", m.admin_payout_not_found());
    if (payout.status !== "awaiting_approval") throw refusePayout(409, "not_waiting", m.admin_payout_not_waiting());
    if (payout.requested_by === actor.userId) throw refusePayout(409, "same_person", m.admin_payout_same_person());
    await tx.execute(sql`update partner_payouts set status = 'requested', approved_by = ${actor.userId} where id = ${payoutId}`);
    await enqueueJob(PAYOUT_QUEUE, { payoutId }, { executor: tx, uniqueKey: `payout:${payoutId}` });
    await audit?.(tx, payout);
  });
}

/**
 * A bank transfer the administrator made, marked paid with the bank's reference: the settlement is
 * paid, once (a second mark, or one while an M-Pesa attempt is open, is refused).
 */
export async function markSettlementPaidByBank(
  actor: { userId: string },
  settlementId: string,
  reference: string,
  audit?: InTransaction<{ reference: string }>,
) {
  const ref = reference.trim();
  if (!isUuid(settlementId)) throw refusePayout(404, "not_found", m.admin_payout_settlement_not_found());
  if (!/^[A-Za-z0-9][A-Za-z0-9/-]{2,59}$/.test(ref)) throw refusePayout(422, "reference", m.admin_payout_reference_required());
  await db().transaction(async (tx) => {
    const settlement = await queryRow<{ status: string; payout_method: string }>(
      tx,
      sql`select status, payout_method from partner_settlements where id = ${settlementId} for update`,
    );
    if (!settlement) throw refusePayout(404, "not_found", m.admin_payout_settlement_not_found());
    if (settlement.payout_method !== "bank") throw refusePayout(422, "not_bank", m.admin_payout_not_bank());
    if (settlement.status !== "pending" && settlement.status !== "failed") throw refusePayout(409, "in_hand", m.admin_payout_in_hand());
    await tx.execute(sql`
      update partner_settlements set status = 'paid', payout_reference = ${ref}, paid_at = now(), failure_reason = null
      where id = ${settlementId}`);
    await settlementPaid(tx, settlementId, actor.userId);
    await audit?.(tx, { reference: ref });
  });
}

/**
 * Everything that follows a settlement being paid, in the same transaction: `partner.settlement.paid`
 * to the partner organisation's webhook endpoint and REST hooks (decision 087), for the B2C and the
 * bank path alike. `by`: the administrator who marked a bank transfer paid (null: M-Pesa's result);
 * the administrator's page writes the admin audit log with its step-up.
 */
async function settlementPaid(tx: Executor, settlementId: string, by: string | null) {
  const s = await queryRow<{
    organization_id: string;
    partner_id: string;
    period: string;
    transactions: number;
    revenue_cents: string;
    partner_cents: string;
    withholding_bps: number;
    withholding_cents: string;
    net_cents: string;
    carried_in_cents: string;
    carried_out_cents: string;
    payable_cents: string;
    payout_method: "mpesa" | "bank";
    payout_reference: string | null;
    paid_at: Date | string;
  }>(
    tx,
    sql`select p.organization_id, s.partner_id, to_char(s.period, 'YYYY-MM') as period, s.transactions, s.revenue_cents::text,
               s.partner_cents::text, s.withholding_bps, s.withholding_cents::text, s.net_cents::text, s.carried_in_cents::text,
               s.carried_out_cents::text, s.payable_cents::text, s.payout_method,
               s.payout_reference, s.paid_at
        from partner_settlements s join partners p on p.id = s.partner_id where s.id = ${settlementId}`,
  );
  if (!s) return;
  await emitWebhookEvent(tx, {
    organizationId: s.organization_id,
    type: "partner.settlement.paid",
    data: {
      settlementId,
      partnerId: s.partner_id,
      month: s.period,
      transactions: s.transactions,
      currency: "KES",
      revenueCents: Number(s.revenue_cents),
      partnerCents: Number(s.partner_cents),
      withholdingBps: s.withholding_bps,
      withholdingCents: Number(s.withholding_cents),
      netCents: Number(s.net_cents),
      carriedInCents: Number(s.carried_in_cents),
      carriedOutCents: Number(s.carried_out_cents),
      payoutCents: Number(s.payable_cents),
      method: s.payout_method,
      reference: s.payout_reference,
      paidAt: new Date(s.paid_at).toISOString(),
      markedBy: by ? "administrator" : "mpesa",
    },
  });
}

/**
 * The queue's handler: each requested attempt sent to Daraja. Accepted: it waits for its result (a
 * status query is due if none comes). In doubt (a timeout): the job fails and is retried, sending the
 * same id. Refused outright: the attempt and its settlement have failed.
 */
export async function runPayoutJobs(jobs: Job<{ payoutId: string }>[]) {
  for (const job of jobs) await sendPayout(job.payload.payoutId);
}

async function sendPayout(payoutId: string) {
  const payout = await queryRow<PayoutRow>(db(), sql`select *, amount_cents::text from partner_payouts where id = ${payoutId}`);
  if (!payout || payout.status !== "requested" || !payout.phone) return;
  try {
    const accepted = await darajaClient().b2cPayment({
      originatorConversationId: payout.originator_conversation_id,
      phone: payout.phone,
      amountKes: Number(payout.amount_cents) / 100,
      remarks: "Jumbe partner settlement",
      occasion: "Settlement",
      resultUrl: payoutCallbackUrl(payout.id, "result"),
      queueTimeoutUrl: payoutCallbackUrl(payout.id, "timeout"),
    });
    await db().execute(sql`
      update partner_payouts set status = 'accepted', conversation_id = ${accepted.conversationId},
             next_check_at = now() + make_interval(secs => ${FIRST_STATUS_QUERY_AFTER_MS / 1000})
      where id = ${payoutId} and status = 'requested'`);
  } catch (error) {
    if (error instanceof DarajaError && !error.inDoubt) {
      await db().transaction((tx) =>
        settleAttempt(tx, payout.id, {
          outcome: "failed",
          resultCode: null,
          resultDesc: error.errorMessage,
          reason: englishOf(words("admin_payout_failed_refused", { reason: error.errorMessage })),
        }),
      );
      return;
    }
    throw error;
  }
}

type Outcome =
  | { outcome: "paid"; receipt: string; receiverName: string | null; resultCode: number; resultDesc: string }
  /** `resultDesc`: Daraja's own words, kept on the attempt; `reason`: the settlement's, a stored sentence (PAYOUT_FAILURES). */
  | { outcome: "failed" | "expired"; resultCode: number | null; resultDesc: string; reason: string };

/** An attempt's believed outcome, and its settlement's with it; only from requested or accepted (once). */
async function settleAttempt(tx: Executor, payoutId: string, result: Outcome) {
  const paid = result.outcome === "paid";
  const [row] = await queryRows<{ settlement_id: string }>(
    tx,
    sql`update partner_payouts set status = ${result.outcome}, result_code = ${result.resultCode}, result_desc = ${result.resultDesc},
               receipt = ${paid ? result.receipt : null}, receiver_name = ${paid ? result.receiverName : null},
               completed_at = now(), next_check_at = null
        where id = ${payoutId} and status in ('requested', 'accepted')
        returning settlement_id`,
  );
  if (!row) return false;
  await tx.execute(
    paid
      ? sql`update partner_settlements set status = 'paid', payout_reference = ${result.receipt}, paid_at = now(), failure_reason = null
            where id = ${row.settlement_id}`
      : sql`update partner_settlements set status = 'failed', failure_reason = ${result.reason} where id = ${row.settlement_id}`,
  );
  if (paid) await settlementPaid(tx, row.settlement_id, null);
  return true;
}

export interface CallbackAnswer {
  status: number;
  body: { ResultCode: number; ResultDesc: string };
}

const ACCEPTED: CallbackAnswer = { status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } };

/**
 * Daraja's POST to an attempt's result, timeout or status address. Believed only from Safaricom's
 * addresses; from anywhere else (the address may have leaked) it changes nothing but brings the
 * status query forward. A duplicate (15) is not a failure: the id may have paid, so it is asked about.
 */
export async function receivePayoutCallback(
  payoutId: string,
  secret: string,
  kind: "result" | "timeout" | "status",
  body: unknown,
  ip: string | undefined,
): Promise<CallbackAnswer> {
  if (!/^[0-9a-f-]{36}$/i.test(payoutId) || !secretOk(payoutId, secret))
    return { status: 404, body: { ResultCode: 1, ResultDesc: "Not found" } };
  let result: B2cResult;
  try {
    result = parseB2cResult(body);
  } catch {
    return { status: 400, body: { ResultCode: 1, ResultDesc: "Not a B2C result" } };
  }
  const payout = await queryRow<PayoutRow>(db(), sql`select * from partner_payouts where id = ${payoutId}`);
  if (!payout || payout.originator_conversation_id !== result.originatorConversationId) {
    // A status answer names the attempt it was asked about; anything else is not this attempt's.
    if (!payout || kind !== "status") return { status: 404, body: { ResultCode: 1, ResultDesc: "Not found" } };
  }
  if (!fromSafaricom(ip)) {
    await askSoon(payoutId);
    return ACCEPTED;
  }
  const outcome = outcomeOf(kind, result);
  if (outcome) await db().transaction((tx) => settleAttempt(tx, payoutId, outcome));
  else await askSoon(payoutId, FIRST_STATUS_QUERY_AFTER_MS);
  return ACCEPTED;
}

/** What a believed callback says, or null when it says nothing final (being processed, duplicate, not found yet). */
function outcomeOf(kind: "result" | "timeout" | "status", result: B2cResult): Outcome | null {
  if (kind === "timeout")
    return {
      outcome: "expired",
      resultCode: result.resultCode,
      resultDesc: result.resultDesc,
      reason: englishOf(words("admin_payout_failed_timeout")),
    };
  if (result.expired)
    return { outcome: "expired", resultCode: result.resultCode, resultDesc: result.resultDesc, reason: failedResult(result) };
  if (kind === "status") {
    if (result.resultCode !== 0) return null;
    if (result.transactionStatus === "Completed" && result.receipt)
      return { outcome: "paid", receipt: result.receipt, receiverName: result.receiverName, resultCode: 0, resultDesc: result.resultDesc };
    if (result.transactionStatus === "Failed" || result.transactionStatus === "Expired")
      return {
        outcome: "failed",
        resultCode: null,
        resultDesc: result.resultDesc,
        reason: englishOf(
          words(result.transactionStatus === "Failed" ? "admin_payout_failed_status_failed" : "admin_payout_failed_status_expired"),
        ),
      };
    return null;
  }
  if (result.resultCode === 0 && result.receipt)
    return { outcome: "paid", receipt: result.receipt, receiverName: result.receiverName, resultCode: 0, resultDesc: result.resultDesc };
  if (result.resultCode === 15) return null;
  return { outcome: "failed", resultCode: result.resultCode, resultDesc: result.resultDesc, reason: failedResult(result) };
}

const failedResult = (result: B2cResult) =>
  englishOf(words("admin_payout_failed_result", { code: String(result.resultCode), reason: result.resultDesc }));

/**
 * The sentences a failed settlement's `failure_reason` is (decision 074): a page says them in its
 * reader's language with `PAYOUT_FAILURES.say(text)`; Daraja's own words inside stay as M-Pesa wrote them.
 */
export const PAYOUT_FAILURES = storedSentences([
  ["admin_payout_failed_refused", { reason: "data" }],
  ["admin_payout_failed_result", { code: "data", reason: "data" }],
  ["admin_payout_failed_status_failed"],
  ["admin_payout_failed_status_expired"],
  ["admin_payout_failed_timeout"],
]);

async function askSoon(payoutId: string, afterMs = 0) {
  await db().execute(sql`
    update partner_payouts set next_check_at = least(coalesce(next_check_at, 'infinity'), now() + make_interval(secs => ${afterMs / 1000}))
    where id = ${payoutId} and status = 'accepted'`);
}

/**
 * The recurring check: accepted attempts whose result is overdue are asked about with the
 * transaction status query (its answer comes to their status address), backing off each time.
 */
export async function queryOverduePayouts(limit = 50) {
  const due = await queryRows<{ id: string; originator_conversation_id: string }>(
    db(),
    sql`
    update partner_payouts p set checks = p.checks + 1,
           next_check_at = now() + make_interval(secs => least(3600, 120 * power(2, p.checks)))
    where p.id in (select id from partner_payouts where status = 'accepted' and next_check_at <= now()
                   order by next_check_at limit ${limit} for update skip locked)
    returning p.id, p.originator_conversation_id`,
  );
  for (const payout of due)
    await darajaClient()
      .transactionStatus({
        originatorConversationId: payout.originator_conversation_id,
        resultUrl: payoutCallbackUrl(payout.id, "status"),
        queueTimeoutUrl: payoutCallbackUrl(payout.id, "timeout"),
      })
      .catch((error: unknown) => log().warn({ err: error, payoutId: payout.id }, "payout status query not sent; asked again later"));
  return due.length;
}
