import { createHmac, timingSafeEqual } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import { log } from "../../infrastructure/log";
import {
  DarajaError,
  darajaClient,
  mpesaResultWords,
  normaliseMpesaPhone,
  parseC2bPayload,
  parseStkCallback,
  type C2bPayment,
  type StkCallback,
} from "../../infrastructure/clients/daraja";
import {
  callbackSecret,
  completePayment,
  createPayment,
  creditPayment,
  failPayment,
  parseTopupAmount,
  paymentById,
  refusePayment,
  secretMatches,
  type PaymentRow,
} from "./payments";
import { announceWalletCredited } from "./wallet-credited";
import { clearLowBalanceAlert } from "./low-balance";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";

/**
 * M-Pesa (decision 035): wallet top-ups by M-Pesa Express (an STK push: a prompt on the payer's
 * phone) and payments to the paybill (C2B) with the organisation's business id as the account.
 * Safaricom's callbacks are unsigned and sometimes lost, and their secret addresses can leak: a
 * prompt is credited only when Jumbe's own STK query says it was paid, or when its callback comes
 * from one of Safaricom's addresses (MPESA_TRUSTED_IPS) and matches what was asked (amount and
 * receipt); a paybill confirmation from any other address is held for an administrator.
 */

/** The query job asks Safaricom about a pending prompt this long after it was sent, then backs off. */
export const FIRST_QUERY_AFTER_MS = 45_000;
/** A prompt nobody answered in this long has failed (the phone is off or out of reach). */
export const PROMPT_GIVE_UP_MS = 10 * 60_000;

export interface MpesaTopupRequest {
  amount: unknown;
  phone: unknown;
  invoiceId?: string | null;
  idempotencyKey?: string | null;
  automatic?: boolean;
}

/** Sends the M-Pesa prompt for a top-up (or an invoice); answers the pending payment. */
export async function startMpesaTopup(actor: { organizationId: string; userId: string | null }, request: MpesaTopupRequest) {
  const amountKes = parseTopupAmount(request.amount);
  const phone = typeof request.phone === "string" ? normaliseMpesaPhone(request.phone) : null;
  if (!phone) throw refusePayment(422, "invalid_phone", m.billing_refusal_mpesa_phone(), "phone");
  const [org] = await rawQuery<{ business_id: string }>(`select business_id from organizations where id = $1`, [actor.organizationId]);
  if (!org) throw refusePayment(404, "not_found", m.billing_refusal_not_found());
  const { secret, hash } = callbackSecret();
  const { payment, repeated } = await createPayment(db(), {
    organizationId: actor.organizationId,
    method: "mpesa",
    amountCents: amountKes * 100,
    invoiceId: request.invoiceId ?? null,
    phone,
    callbackSecretHash: hash,
    automatic: request.automatic ?? false,
    idempotencyKey: request.idempotencyKey ?? null,
    createdBy: actor.userId,
  });
  if (repeated) return payment;
  const config = env();
  try {
    const accepted = await darajaClient().stkPush({
      phone,
      amountKes,
      accountReference: org.business_id.slice(0, 12),
      description: "Jumbe top-up",
      callbackUrl: `${config.MPESA_CALLBACK_BASE_URL}/webhooks/mpesa/stk/${payment.id}/${secret}`,
    });
    const [updated] = await rawQuery<PaymentRow>(
      `update payments set checkout_request_id = $2, merchant_request_id = $3,
              next_check_at = now() + make_interval(secs => ${FIRST_QUERY_AFTER_MS / 1000})
       where id = $1 returning *`,
      [payment.id, accepted.checkoutRequestId, accepted.merchantRequestId],
    );
    return updated!;
  } catch (error) {
    // The payment keeps its reason in English (it is stored, and read by jobs and the console); the member reads theirs.
    await failPayment(payment.id, {
      code: error instanceof DarajaError ? (error.errorCode ?? String(error.httpStatus)) : "network",
      reason: pushFailureWords(error, "en"),
    });
    throw refusePayment(
      error instanceof DarajaError && error.httpStatus < 500 ? 422 : 502,
      "mpesa_refused",
      pushFailureWords(error),
      "phone",
    );
  }
}

/** Why a push failed, in `locale` (the request's when not given); logged once, when said in English. */
function pushFailureWords(error: unknown, locale?: Locale) {
  const options = locale ? { locale } : {};
  if (!(error instanceof DarajaError)) {
    if (locale === "en") log().warn({ err: error }, "M-Pesa push failed to reach Safaricom");
    return m.billing_refusal_mpesa_unreachable({}, options);
  }
  if (/lock subscriber|already in process/i.test(error.errorMessage)) return m.billing_refusal_mpesa_prompt_waiting({}, options);
  if (/PhoneNumber|PartyA/i.test(error.errorMessage)) return m.billing_refusal_mpesa_phone_refused({}, options);
  if (locale === "en") log().warn({ code: error.errorCode, message: error.errorMessage }, "M-Pesa refused a push");
  return m.billing_refusal_mpesa_refused({ reason: error.errorMessage }, options);
}

/** What the callback route answers: Safaricom wants 200 quickly; a wrong address or body gets a 4xx and changes nothing. */
export type CallbackAnswer = { status: 200 | 400 | 403 | 404; body: Record<string, unknown> };
const ACCEPTED: CallbackAnswer = { status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } };

/** Whether a callback's source address is allowed (MPESA_ALLOWED_IPS; empty allows any). */
export function callbackSourceAllowed(ip: string | undefined) {
  const allowed = env().mpesaAllowedIps;
  if (!allowed.length) return true;
  const plain = (ip ?? "").replace(/^::ffff:/, "");
  return allowed.includes(plain);
}

/**
 * Whether a callback came from one of Safaricom's addresses (MPESA_TRUSTED_IPS, addresses or
 * subnets), as Express resolved the client behind the trusted proxies. Only such a callback is
 * believed on its own word: the secret in its address may have leaked (shared/reference/kenya-payments.md §1.7).
 */
export function fromSafaricom(ip: string | undefined) {
  const plain = (ip ?? "").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
  const family = isIP(plain);
  if (!family) return false;
  const trusted = new BlockList();
  for (const entry of env().mpesaTrustedIps) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(prefix), type);
  }
  return trusted.check(plain, family === 6 ? "ipv6" : "ipv4");
}

/** An STK callback to `/webhooks/mpesa/stk/<payment>/<secret>`. */
export async function receiveStkCallback(
  paymentId: string,
  secret: string,
  body: unknown,
  ip: string | undefined,
): Promise<CallbackAnswer> {
  if (!callbackSourceAllowed(ip)) return { status: 403, body: { ResultCode: 1, ResultDesc: "Forbidden" } };
  const payment = await paymentById(paymentId);
  if (!payment || payment.method !== "mpesa" || !secretMatches(payment, secret))
    return { status: 404, body: { ResultCode: 1, ResultDesc: "Not found" } };
  let callback: StkCallback;
  try {
    callback = parseStkCallback(body);
  } catch (error) {
    return { status: 400, body: { ResultCode: 1, ResultDesc: (error as Error).message } };
  }
  if (callback.checkoutRequestId !== payment.checkout_request_id)
    return { status: 400, body: { ResultCode: 1, ResultDesc: "Unknown request" } };
  const matches = callback.resultCode === 0 && callback.receipt !== null && callback.amountKes === Number(payment.amount_cents) / 100;
  if (payment.status !== "pending") {
    // A repeat after it was settled (or the query settled it first): keep the receipt if it was missing.
    if (payment.status === "completed" && matches && !payment.receipt)
      await rawQuery(`update payments set receipt = $2 where id = $1 and receipt is null`, [payment.id, callback.receipt]).catch(
        () => undefined,
      );
    return ACCEPTED;
  }
  await settleFromCallback(payment, callback, { matches, fromSafaricom: fromSafaricom(ip) });
  return ACCEPTED;
}

/**
 * A callback of a pending payment. Safaricom's STK query decides when it has a final answer,
 * whatever the callback claims. Without one ("being processed", or no answer), a callback from
 * Safaricom's addresses is believed (a success only with the amount asked for and a receipt); any
 * other waits for the query job, which asks again until a final answer or the give-up time: the
 * secret address alone (it may have leaked) credits nothing and fails nothing.
 */
async function settleFromCallback(payment: PaymentRow, callback: StkCallback, source: { matches: boolean; fromSafaricom: boolean }) {
  const query = await queryQuietly(payment.checkout_request_id!);
  if (query?.state === "done") {
    if (query.resultCode === 0)
      await completePayment(payment.id, {
        // The query has no receipt: the callback's, when it agrees with what was asked.
        receipt: source.matches ? callback.receipt : null,
        via: source.matches ? "M-Pesa" : "M-Pesa's status query",
      });
    else await failPayment(payment.id, { code: String(query.resultCode), reason: mpesaResultWords(query.resultCode, query.resultDesc) });
    return;
  }
  if (source.fromSafaricom && source.matches) {
    await completePayment(payment.id, { receipt: callback.receipt, via: "M-Pesa" });
    return;
  }
  if (source.fromSafaricom && callback.resultCode !== 0) {
    await failPayment(payment.id, {
      code: String(callback.resultCode),
      reason: mpesaResultWords(callback.resultCode, callback.resultDesc),
    });
    return;
  }
  if (callback.resultCode === 0)
    log().warn(
      { paymentId: payment.id, amount: callback.amountKes, asked: Number(payment.amount_cents) / 100, query: query?.state ?? "unanswered" },
      source.matches
        ? "M-Pesa callback not confirmed by the STK query and not from Safaricom's addresses: not credited yet"
        : "M-Pesa callback did not match its payment: not credited",
    );
  // It stays pending, and the query job asks Safaricom again soon.
  await rawQuery(`update payments set next_check_at = least(coalesce(next_check_at, now()), now() + interval '15 seconds') where id = $1`, [
    payment.id,
  ]);
}

async function queryQuietly(checkoutRequestId: string) {
  try {
    return await darajaClient().stkQuery(checkoutRequestId);
  } catch (error) {
    log().warn({ err: error, checkoutRequestId }, "M-Pesa status query failed");
    return null;
  }
}

/**
 * The query job: pending prompts whose callback has not settled them are asked about, paid ones
 * credited, failed ones failed in words, and one still unanswered after ten minutes given up.
 */
export async function settlePendingPrompts(now = new Date(), limit = 20) {
  const due = await rawQuery<PaymentRow>(
    `update payments set next_check_at = $1::timestamptz + make_interval(secs => least(300, 15 * (checks + 1))), checks = checks + 1
     where id in (select id from payments where method = 'mpesa' and status = 'pending' and checkout_request_id is not null
                  and next_check_at <= $1 order by next_check_at limit $2 for update skip locked)
     returning *`,
    [now.toISOString(), limit],
  );
  let settled = 0;
  for (const payment of due) {
    const query = await queryQuietly(payment.checkout_request_id!);
    if (query?.state === "done") {
      if (query.resultCode === 0) await completePayment(payment.id, { receipt: null, via: "M-Pesa's status query" });
      else await failPayment(payment.id, { code: String(query.resultCode), reason: mpesaResultWords(query.resultCode, query.resultDesc) });
      settled++;
    } else if (query && now.getTime() - new Date(payment.created_at).getTime() > PROMPT_GIVE_UP_MS) {
      // Given up only on Safaricom's own word that it is still unanswered; unreachable, it is asked again later.
      await failPayment(payment.id, { code: "1037", reason: mpesaResultWords(1037) });
      settled++;
    }
  }
  // Pending prompts that never reached Safaricom (the push failed to record its ids) are closed too.
  await rawQuery(
    `update payments set status = 'failed', result_code = 'unsent', failure_reason = 'The M-Pesa prompt was never sent.', completed_at = now()
     where method = 'mpesa' and status = 'pending' and checkout_request_id is null and created_at < $1::timestamptz - interval '10 minutes'`,
    [now.toISOString()],
  );
  return settled;
}

/** The secret in the paybill's validation and confirmation addresses (stable per deployment). */
export function c2bSecret() {
  return createHmac("sha256", env().SESSION_SECRET).update("jumbe-mpesa-c2b").digest("base64url").slice(0, 32);
}

function c2bSecretMatches(secret: string) {
  const a = Buffer.from(secret);
  const b = Buffer.from(c2bSecret());
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The paybill addresses Daraja is told about. */
export function c2bUrls() {
  // Daraja refuses C2B addresses that contain "mpesa" (or safaricom, query, sql...): /webhooks/paybill.
  const base = `${env().MPESA_CALLBACK_BASE_URL}/webhooks/paybill/${c2bSecret()}`;
  return { validationUrl: `${base}/validation`, confirmationUrl: `${base}/confirmation` };
}

/** Registers the paybill's addresses with Daraja (each instance at start-up; a refusal is logged, not fatal). */
export async function registerPaybillUrls() {
  await darajaClient().registerC2bUrls({ ...c2bUrls(), responseType: "Completed" });
}

const normaliseAccount = (value: string) => value.trim().toUpperCase().replace(/\s+/g, "");

/** How an organisation pays to the paybill: the business number, and as the account its business id (as confirmations are matched). */
export function paybillFor(organization: { businessId: string }) {
  return { businessNumber: env().MPESA_SHORTCODE, accountNumber: normaliseAccount(organization.businessId) };
}
export type Paybill = ReturnType<typeof paybillFor>;

async function organisationOfAccount(billRefNumber: string) {
  const account = normaliseAccount(billRefNumber);
  if (!account) return undefined;
  return (
    await rawQuery<{ id: string }>(`select id from organizations where upper(business_id) = $1 and erase_after is null`, [account])
  )[0];
}

/** Daraja's validation call: an account number that names no organisation is rejected (C2B00012). */
export async function validatePaybill(secret: string, body: unknown, ip: string | undefined): Promise<CallbackAnswer> {
  if (!c2bSecretMatches(secret)) return { status: 404, body: { ResultCode: "C2B00016", ResultDesc: "Rejected" } };
  if (!callbackSourceAllowed(ip)) return { status: 403, body: { ResultCode: "C2B00016", ResultDesc: "Rejected" } };
  let payment;
  try {
    payment = parseC2bPayload(body);
  } catch {
    return { status: 200, body: { ResultCode: "C2B00016", ResultDesc: "Rejected" } };
  }
  if (payment.amountCents < 100) return { status: 200, body: { ResultCode: "C2B00013", ResultDesc: "Rejected" } };
  if (!(await organisationOfAccount(payment.billRefNumber)))
    return { status: 200, body: { ResultCode: "C2B00012", ResultDesc: "Rejected" } };
  return { status: 200, body: { ResultCode: "0", ResultDesc: "Accepted" } };
}

/** A paybill payment nobody is credited for until an administrator has looked (once per TransID; not one already credited). */
async function holdInSuspense(paid: C2bPayment, body: unknown) {
  await rawQuery(
    `insert into mpesa_suspense (trans_id, bill_ref_number, amount_cents, msisdn, payload)
     select $1::text, $2::text, $3::bigint, $4::text, $5::jsonb where not exists (select 1 from payments where receipt = $1::text)
     on conflict (trans_id) do nothing`,
    [paid.transId, paid.billRefNumber, paid.amountCents, paid.msisdn || null, JSON.stringify(body)],
  );
}

/**
 * Daraja's confirmation: the money is in the paybill. From Safaricom's addresses it credits the
 * organisation named by the account number once per TransID (a receipt that already credited, by the
 * paybill or a prompt, credits nothing). An unknown account, or a confirmation from any other address
 * (Daraja offers no synchronous query of a C2B payment, and the address's secret may have leaked),
 * goes to the suspense list for an administrator to check against the M-Pesa statement.
 */
export async function confirmPaybill(secret: string, body: unknown, ip: string | undefined): Promise<CallbackAnswer> {
  if (!c2bSecretMatches(secret)) return { status: 404, body: { ResultCode: 1, ResultDesc: "Not found" } };
  if (!callbackSourceAllowed(ip)) return { status: 403, body: { ResultCode: 1, ResultDesc: "Forbidden" } };
  let paid;
  try {
    paid = parseC2bPayload(body);
  } catch (error) {
    return { status: 400, body: { ResultCode: 1, ResultDesc: (error as Error).message } };
  }
  if (!fromSafaricom(ip)) {
    await holdInSuspense(paid, body);
    log().warn(
      { transId: paid.transId, account: paid.billRefNumber, ip },
      "paybill confirmation from an address not in MPESA_TRUSTED_IPS: kept in suspense, not credited",
    );
    return ACCEPTED;
  }
  const org = await organisationOfAccount(paid.billRefNumber);
  if (!org) {
    await holdInSuspense(paid, body);
    log().warn({ transId: paid.transId, account: paid.billRefNumber }, "paybill payment to an unknown account: kept in suspense");
    return ACCEPTED;
  }
  const credited = await db().transaction(async (tx) => {
    // The receipt is the key: one already known (a repeat, or the prompt's own receipt) credits nothing.
    const known = await queryRows<unknown>(
      tx,
      sql`
      select 1 from payments where receipt = ${paid.transId} union all select 1 from wallet_entries where receipt = ${paid.transId}
      limit 1`,
    );
    if (known.length) return null;
    const result = await queryRows<PaymentRow>(
      tx,
      sql`
      insert into payments (organization_id, method, status, amount_cents, phone, reference, receipt, result_code, completed_at)
      values (${org.id}, 'c2b', 'completed', ${paid.amountCents}, ${paid.msisdn || null}, ${paid.transId}, ${paid.transId}, '0', now())
      on conflict do nothing
      returning *`,
    );
    const payment = result[0];
    if (!payment) return null;
    await creditPayment(tx, payment, "M-Pesa paybill");
    // Held earlier (from an address not Safaricom's), now confirmed by Safaricom: nothing left to look at.
    await tx.execute(sql`update mpesa_suspense set resolved_at = now() where trans_id = ${paid.transId} and resolved_at is null`);
    return payment;
  });
  if (credited) {
    await clearLowBalanceAlert(credited.organization_id);
    await announceWalletCredited(credited.organization_id);
  }
  return ACCEPTED;
}
