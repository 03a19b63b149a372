import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { log } from "../../../infrastructure/log";
import { parseC2bPayload, parseStkCallback, type StkCallback } from "../../../infrastructure/clients/daraja";
import { callbackSourceAllowed, fromSafaricom } from "../../billing";
import { shortcodeByCallbackToken, type MpesaShortcode } from "../shortcodes-access";
import { requestDaraja } from "./daraja";
import { keepC2bReceipt } from "./receipts";
import type { C2bUnmatchedReason } from "../../../infrastructure/db/schema";
import { lockRequest } from "./lock";
import { markPaid, settleAttempt, type StkOutcome } from "./settle";

/** What the route answers Daraja: 200 quickly; a wrong token or body a 4xx that changes nothing. */
export type PayCallbackAnswer = { status: 200 | 400 | 403 | 404; body: Record<string, unknown> };
const ACCEPTED: PayCallbackAnswer = { status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } };
const NOT_FOUND: PayCallbackAnswer = { status: 404, body: { ResultCode: 1, ResultDesc: "Not found" } };
const FORBIDDEN: PayCallbackAnswer = { status: 403, body: { ResultCode: 1, ResultDesc: "Forbidden" } };

/** Safaricom's status query for one of this shortcode's prompts; null when it could not be asked. */
export async function queryPrompt(shortcode: MpesaShortcode, checkoutRequestId: string) {
  try {
    return await requestDaraja(shortcode).stkQuery(checkoutRequestId);
  } catch (error) {
    log().warn({ err: error, checkoutRequestId }, "payment request: M-Pesa status query failed");
    return null;
  }
}

/**
 * Which outcome a callback earns (billing/mpesa.ts's trust, decision 035): Jumbe's own status query
 * decides when it has a final answer (the callback's receipt and amount then tell the details);
 * without one, only a callback from Safaricom's addresses is believed; any other waits for the query job.
 */
export function outcomeOf(
  callback: StkCallback,
  query: Awaited<ReturnType<typeof queryPrompt>>,
  trusted: boolean,
  askedKes: number,
): StkOutcome | null {
  const paid: StkOutcome = {
    kind: "paid",
    receipt: callback.receipt,
    amountKes: callback.amountKes,
    phone: callback.phone,
    at: callback.transactionDate,
  };
  if (query?.state === "done") {
    if (query.resultCode !== 0) return { kind: "failed", code: String(query.resultCode), desc: query.resultDesc };
    if (callback.resultCode !== 0) return { kind: "paid", receipt: null, amountKes: null, phone: null, at: null };
    // Paid, on Safaricom's word; the details of a callback from elsewhere only when they agree with what was asked.
    if (trusted || callback.amountKes === askedKes) return paid;
    return { kind: "paid", receipt: null, amountKes: null, phone: null, at: null };
  }
  if (!trusted) return null;
  return callback.resultCode === 0 ? paid : { kind: "failed", code: String(callback.resultCode), desc: callback.resultDesc };
}

/** POST /webhooks/pay/<token>/stk: an STK callback for one of the shortcode's prompts. */
export async function receivePaymentStk(token: string, body: unknown, ip: string | undefined): Promise<PayCallbackAnswer> {
  if (!callbackSourceAllowed(ip)) return FORBIDDEN;
  const shortcode = await shortcodeByCallbackToken(token);
  if (!shortcode) return NOT_FOUND;
  let callback: StkCallback;
  try {
    callback = parseStkCallback(body);
  } catch (error) {
    return { status: 400, body: { ResultCode: 1, ResultDesc: (error as Error).message } };
  }
  // Another shortcode's prompt (another tenant's token) is not found: nothing changes.
  const [attempt] = await queryRows<{ state: string; amount_kes: number }>(
    db(),
    sql`select a.state, r.amount_kes from payment_attempts a join payment_requests r on r.id = a.request_id
        where a.checkout_request_id = ${callback.checkoutRequestId} and r.shortcode_id = ${shortcode.id}`,
  );
  if (!attempt) return { status: 404, body: { ResultCode: 1, ResultDesc: "Unknown request" } };
  const trusted = fromSafaricom(ip);
  // Settled already: a repeat changes nothing, but Safaricom's own may bring the receipt a status query lacked.
  if (attempt.state === "paid" || attempt.state === "failed") {
    const repeat = trusted ? outcomeOf(callback, null, true, Number(attempt.amount_kes)) : null;
    if (repeat) await settleAttempt(callback.checkoutRequestId, repeat, shortcode.id);
    return ACCEPTED;
  }
  const query = await queryPrompt(shortcode, callback.checkoutRequestId);
  const outcome = outcomeOf(callback, query, trusted, Number(attempt.amount_kes));
  if (!outcome) {
    log().warn(
      { checkoutRequestId: callback.checkoutRequestId, ip },
      "payment request callback not confirmed: waiting for the status query",
    );
    await queryRows(
      db(),
      sql`update payment_attempts set next_check_at = least(coalesce(next_check_at, now()), now() + interval '15 seconds')
                              where checkout_request_id = ${callback.checkoutRequestId} and state = 'pending' returning id`,
    );
    return ACCEPTED;
  }
  await settleAttempt(callback.checkoutRequestId, outcome, shortcode.id);
  return ACCEPTED;
}

const normaliseReference = (value: string) => value.trim().toUpperCase().replace(/\s+/g, "");

/**
 * Daraja's C2B validation for the tenant's shortcode: always accepted. The paybill is the business's
 * own and takes payments Jumbe knows nothing of (decision 137); a reference that names no request is
 * simply not matched at confirmation.
 */
export async function validatePaymentC2b(token: string, ip: string | undefined): Promise<PayCallbackAnswer> {
  if (!callbackSourceAllowed(ip)) return FORBIDDEN;
  if (!(await shortcodeByCallbackToken(token))) return NOT_FOUND;
  return { status: 200, body: { ResultCode: "0", ResultDesc: "Accepted" } };
}

/**
 * Daraja's C2B confirmation: money is in the tenant's paybill. From Safaricom's addresses, a
 * BillRefNumber naming one open request of this shortcode (trimmed, any case) settles it, under its
 * lock, once (its TransID is the receipt; a receipt already recorded settles nothing). From any other
 * address nothing is settled (Daraja offers no synchronous check of a C2B payment). Every confirmation
 * is kept once (payment_c2b_receipts); one that settled nothing waits in Settings → Payments for a
 * manager to match it to its request.
 */
export async function confirmPaymentC2b(token: string, body: unknown, ip: string | undefined): Promise<PayCallbackAnswer> {
  if (!callbackSourceAllowed(ip)) return FORBIDDEN;
  const shortcode = await shortcodeByCallbackToken(token);
  if (!shortcode) return NOT_FOUND;
  let paid;
  try {
    paid = parseC2bPayload(body);
  } catch (error) {
    return { status: 400, body: { ResultCode: 1, ResultDesc: (error as Error).message } };
  }
  const kept = {
    transId: paid.transId,
    amountCents: paid.amountCents,
    msisdn: paid.msisdn,
    firstName: paid.firstName,
    billRefNumber: paid.billRefNumber,
    transTime: paid.transTime,
  };
  const unmatched = (reason: C2bUnmatchedReason) => db().transaction((tx) => keepC2bReceipt(tx, shortcode, kept, { reason }));
  if (!fromSafaricom(ip)) {
    log().warn(
      { transId: paid.transId, ip, shortcode: shortcode.id },
      "payment request C2B confirmation not from Safaricom's addresses: not settled, kept for the team to match",
    );
    await unmatched("untrusted_source");
    return ACCEPTED;
  }
  const reference = normaliseReference(paid.billRefNumber);
  const open = await queryRows<{ id: string }>(
    db(),
    sql`select id from payment_requests where shortcode_id = ${shortcode.id} and status = 'open' and upper(reference) = ${reference} limit 2`,
  );
  if (open.length !== 1) {
    if (open.length > 1) log().warn({ transId: paid.transId, reference }, "C2B reference names several open requests: not settled");
    const closed =
      open.length === 0 &&
      reference !== "" &&
      (
        await queryRows<unknown>(
          db(),
          sql`select 1 from payment_requests where shortcode_id = ${shortcode.id} and upper(reference) = ${reference} limit 1`,
        )
      ).length > 0;
    await unmatched(open.length > 1 ? "several_requests" : closed ? "request_closed" : "no_request");
    return ACCEPTED;
  }
  await db().transaction(async (tx) => {
    const request = await lockRequest(tx, open[0]!.id);
    if (!request) return;
    const known = await queryRows<unknown>(tx, sql`select 1 from payment_requests where paid_receipt = ${paid.transId} limit 1`);
    if (known.length) return;
    // Closed meanwhile (paid by its prompt, expired): kept for the team, not recorded over the first payment.
    if (request.status !== "open") return void (await keepC2bReceipt(tx, shortcode, kept, { reason: "request_closed" }));
    if (!(await keepC2bReceipt(tx, shortcode, kept, { requestId: request.id }))) return;
    await markPaid(tx, request, {
      via: "c2b",
      receipt: paid.transId,
      amountKes: paid.amountCents / 100,
      phone: paid.msisdn || null,
      at: paid.transTime,
    });
  });
  return ACCEPTED;
}
