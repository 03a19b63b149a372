import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../../infrastructure/jobs/queue";
import { log } from "../../../infrastructure/log";
import { DarajaError, normaliseMpesaPhone } from "../../../infrastructure/clients/daraja";
import { shortcodeForOrganization } from "../shortcodes-access";
import { requestDaraja } from "./daraja";
import { shortcodeCallbackUrls } from "../shortcodes";
import { lockRequest, unfinishedAttempt } from "./lock";
import { answer, customerOfRequest, tellCustomer, type RequestCustomer } from "./tell";
import { customerLocale, kes, parseButtonId } from "./words";
import { m } from "~/paraglide/messages";

/** The job that acts on a customer's tap on a request's buttons, or on the number they typed. */
export const PAYMENT_REQUEST_TAPS_QUEUE = "payments.request-taps";
/** A number asked for is read from the customer's next text within this long. */
const PHONE_ASKED_MINUTES = 30;
/** The query job first asks Safaricom about a prompt this long after it was sent. */
export const FIRST_QUERY_AFTER_S = 45;

interface Arrived {
  id: string;
  organization_id: string;
  contact_id: string | null;
  message_type: string;
  /** Meta's message object, as stored (JSON text). */
  payload: string;
}

/**
 * In the webhook's transaction, before automations see the batch: a tap on a payment request's
 * button, and the text of a customer who was asked for their M-Pesa number, are the request's (a
 * job each); answers their ids, which automations, flows and the assistant then leave alone.
 */
export async function claimPaymentReplies(tx: Executor, arrived: readonly Arrived[]): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (const message of arrived) {
    if ((message.message_type !== "interactive" && message.message_type !== "button") || !message.contact_id) continue;
    if (tapOf(JSON.parse(message.payload) as Inbound["payload"])) claimed.add(message.id);
  }
  const texts = arrived.filter((message) => message.message_type === "text" && message.contact_id);
  if (texts.length) {
    // One indexed look for the batch: open requests of these customers that asked for a number.
    const asked = await queryRows<{ contact_id: string }>(
      tx,
      sql`
      select distinct contact_id from payment_requests
      where status = 'open' and contact_id = any(${sql.param(texts.map((t) => t.contact_id!))}::uuid[])
        and phone_asked_at > now() - make_interval(mins => ${PHONE_ASKED_MINUTES})`,
    );
    const waiting = new Set(asked.map((row) => row.contact_id));
    for (const text of texts) if (waiting.has(text.contact_id!)) claimed.add(text.id);
  }
  for (const id of claimed) {
    const message = arrived.find((a) => a.id === id)!;
    await enqueueJob(PAYMENT_REQUEST_TAPS_QUEUE, { organizationId: message.organization_id, messageId: id }, { executor: tx });
  }
  return claimed;
}

/**
 * The request button a message taps: a reply button's id, or a template quick reply's payload (the
 * payment template outside the window, decision 140: Meta sends those as type "button").
 */
const tapOf = (payload: Inbound["payload"]) =>
  parseButtonId(payload.interactive?.button_reply?.id) ?? parseButtonId(payload.button?.payload);

interface Inbound {
  id: string;
  organization_id: string;
  contact_id: string;
  message_type: string;
  payload: { interactive?: { button_reply?: { id?: unknown } }; button?: { payload?: unknown }; text?: { body?: string } };
  body: string | null;
}

/** The taps' job: each message's request acted on (outside a transaction: a push calls Daraja). */
export async function runPaymentTaps(jobs: readonly Job<{ organizationId: string; messageId: string }>[]) {
  for (const job of jobs) {
    const [message] = await rawQuery<Inbound>(
      `select id, organization_id, contact_id, message_type, payload, body from messages where organization_id = $1 and id = $2`,
      [job.payload.organizationId, job.payload.messageId],
    );
    if (!message) continue;
    const tap = tapOf(message.payload);
    if (tap) await onTap(message, tap);
    else await onTypedNumber(message);
  }
}

async function onTap(message: Inbound, tap: NonNullable<ReturnType<typeof parseButtonId>>) {
  const customer = await customerOfRequest(message.organization_id, tap.requestId);
  if (!customer) return;
  if (tap.action === "other") {
    const locale = customerLocale(customer.language);
    const reply = await db().transaction(async (tx) => {
      const request = await lockRequest(tx, tap.requestId, message.organization_id);
      if (!request || request.contact_id !== message.contact_id) return null;
      const closed = closedAnswer(request, locale);
      if (closed) return closed;
      await tx.execute(sql`update payment_requests set phone_asked_at = now(), updated_at = now() where id = ${request.id}`);
      return m.payreq_ask_phone({}, { locale });
    });
    if (reply) await tellCustomer(customer, answer(reply, locale));
    return;
  }
  // Pay: the customer's own WhatsApp number; Try again: the number the last prompt went to.
  const [last] = await rawQuery<{ phone: string }>(
    `select phone from payment_attempts where request_id = $1 and organization_id = $2 order by created_at desc limit 1`,
    [tap.requestId, message.organization_id],
  );
  const phone = (tap.action === "retry" && last?.phone) || normaliseMpesaPhone(customer.phone);
  if (!phone) {
    await tellCustomer(
      customer,
      answer(m.payreq_ask_phone({}, { locale: customerLocale(customer.language) }), customerLocale(customer.language)),
    );
    return;
  }
  await startAttempt(customer, message.contact_id, phone, false);
}

async function onTypedNumber(message: Inbound) {
  const [request] = await rawQuery<{ id: string }>(
    `select id from payment_requests where organization_id = $1 and contact_id = $2 and status = 'open'
       and phone_asked_at > now() - make_interval(mins => ${PHONE_ASKED_MINUTES}) order by phone_asked_at desc limit 1`,
    [message.organization_id, message.contact_id],
  );
  if (!request) return;
  const customer = await customerOfRequest(message.organization_id, request.id);
  if (!customer) return;
  const text = (message.payload.text?.body ?? message.body ?? "").trim();
  const phone = normaliseMpesaPhone(text);
  const locale = customerLocale(customer.language);
  if (!phone) {
    await tellCustomer(customer, answer(m.payreq_phone_invalid({ text: text.slice(0, 40) }, { locale }), locale));
    return;
  }
  await startAttempt(customer, message.contact_id, phone, true);
}

/** Why a request takes no payment now, in the customer's words; null while it is open. */
function closedAnswer(request: NonNullable<Awaited<ReturnType<typeof lockRequest>>>, locale: ReturnType<typeof customerLocale>) {
  if (request.status === "paid") return m.payreq_already_paid({ receipt: request.paid_receipt ?? "—" }, { locale });
  if (request.status !== "open" || request.expired) return m.payreq_no_longer_open({}, { locale });
  return null;
}

/**
 * A tap that should ring the phone: under the request's lock, a paid or closed request answers so,
 * an attempt still waiting answers that the prompt is on the phone, and only otherwise is an attempt
 * recorded (pending) — then, after the commit, the push. Two taps at once: one push.
 */
export async function startAttempt(customer: RequestCustomer, contactId: string, phone: string, typed: boolean) {
  const locale = customerLocale(customer.language);
  const claim = await db().transaction(async (tx) => {
    const request = await lockRequest(tx, customer.requestId, customer.organizationId);
    if (!request || request.contact_id !== contactId) return null;
    const closed = closedAnswer(request, locale);
    if (closed) return { say: closed };
    if (await unfinishedAttempt(tx, request.id)) return { say: m.payreq_prompt_waiting({}, { locale }) };
    if (typed) await tx.execute(sql`update payment_requests set phone_asked_at = null, updated_at = now() where id = ${request.id}`);
    const [attempt] = await queryRows<{ id: string }>(
      tx,
      sql`
      insert into payment_attempts (organization_id, request_id, phone, next_check_at)
      values (${request.organization_id}, ${request.id}, ${phone}, now() + make_interval(secs => ${FIRST_QUERY_AFTER_S}))
      returning id`,
    );
    return { attemptId: attempt!.id, request };
  });
  if (!claim) return;
  if (claim.say !== undefined) {
    await tellCustomer(customer, answer(claim.say, locale));
    return;
  }
  await push(customer, claim.attemptId, claim.request, phone);
}

async function push(
  customer: RequestCustomer,
  attemptId: string,
  request: NonNullable<Awaited<ReturnType<typeof lockRequest>>>,
  phone: string,
) {
  const locale = customerLocale(customer.language);
  const shortcode = await shortcodeForOrganization(request.organization_id, request.shortcode_id);
  if (!shortcode) return;
  try {
    const accepted = await requestDaraja(shortcode).stkPush({
      phone,
      amountKes: Number(request.amount_kes),
      accountReference: request.reference,
      description: "Payment",
      callbackUrl: shortcodeCallbackUrls(shortcode.callbackToken).stk,
    });
    await rawQuery(`update payment_attempts set checkout_request_id = $2, merchant_request_id = $3 where id = $1`, [
      attemptId,
      accepted.checkoutRequestId,
      accepted.merchantRequestId,
    ]);
    await tellCustomer(
      customer,
      answer(m.payreq_prompt_sent({ phone: `+${phone}`, amount: kes(Number(request.amount_kes), locale) }, { locale }), locale),
    );
  } catch (error) {
    // In doubt (no answer after sending): the prompt may still ring; the query job closes it.
    const inDoubt = error instanceof DarajaError && error.inDoubt;
    const code = error instanceof DarajaError ? (error.errorCode ?? String(error.httpStatus)) : "network";
    const desc = error instanceof DarajaError ? error.errorMessage : "Safaricom could not be reached";
    log().warn({ requestId: request.id, code, inDoubt }, "a payment request's M-Pesa push was refused");
    await rawQuery(
      `update payment_attempts set state = $2, result_code = $3, result_desc = $4, finished_at = case when $2 = 'failed' then now() end
       where id = $1 and state = 'pending'`,
      [attemptId, inDoubt ? "in_doubt" : "failed", code, desc],
    );
    if (!inDoubt) await tellCustomer(customer, answer(m.payreq_push_refused({ phone: `+${phone}` }, { locale }), locale, request.id));
  }
}
