import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull, notInArray, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { conversations, messages, smsEarlyReports, smsMessages } from "../../infrastructure/db/schema";
import { chargeAccepted, settleFailed } from "../billing";
import { consentKeyword, recordConsent } from "../contacts";
import { enqueueMessageEvents } from "../webhooks-out";
import { logMessageEvents } from "../messaging";
import { smsConnectionByToken } from "./connection";
import { contactByPhone, conversationForSms } from "./conversation";

/**
 * Africa's Talking's callbacks (issue 77, decision 148): delivery reports, incoming SMS and opt-outs,
 * each bound to the organisation of the token in its URL (an unknown token is 404). AT posts form
 * fields; a field missing or malformed is 400; a callback sent twice changes nothing the second time.
 */
export interface CallbackAnswer {
  status: 200 | 400 | 404;
  body: string;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const field = (form: URLSearchParams, name: string, max = 200) => {
  const value = (form.get(name) ?? "").trim();
  return value.length <= max ? value : "";
};
const bad = (what: string): CallbackAnswer => ({ status: 400, body: `${what}\n` });
const ok: CallbackAnswer = { status: 200, body: "OK\n" };
const unknownToken: CallbackAnswer = { status: 404, body: "Not found\n" };

/** AT's delivery statuses: final ones are never taken back. */
const DELIVERED = new Set(["Success"]);
const FAILED = new Set(["Failed", "Rejected"]);
const IN_FLIGHT = new Set(["Buffered", "Sent", "Submitted"]);
const FINAL_STATUSES = ["delivered", "failed"];

/** The outbound SMS AT's id names, or (decision 150) the oldest one to that number whose send had no answer, now named. */
async function reportedSms(tx: Executor, organizationId: string, atMessageId: string, phone: string) {
  const named = (id: string) =>
    and(eq(smsMessages.organizationId, organizationId), eq(smsMessages.direction, "outbound"), eq(smsMessages.atMessageId, id));
  const [sms] = await tx
    .select({ id: smsMessages.id, messageId: smsMessages.messageId })
    .from(smsMessages)
    .where(named(atMessageId))
    .limit(1);
  if (sms || !E164.test(phone)) return sms;
  const [unknown] = await tx
    .select({ id: smsMessages.id })
    .from(smsMessages)
    .innerJoin(messages, eq(messages.id, smsMessages.messageId))
    .where(
      and(
        eq(smsMessages.organizationId, organizationId),
        eq(smsMessages.direction, "outbound"),
        isNull(smsMessages.atMessageId),
        eq(messages.recipientPhone, phone),
      ),
    )
    .orderBy(asc(smsMessages.createdAt))
    .limit(1);
  if (!unknown) return undefined;
  const [claimed] = await tx
    .update(smsMessages)
    .set({ atMessageId })
    .where(and(eq(smsMessages.id, unknown.id), isNull(smsMessages.atMessageId)))
    .returning({ id: smsMessages.id, messageId: smsMessages.messageId });
  return claimed;
}

/** What a delivery report says about one SMS. */
interface SmsReport {
  status: string;
  failureReason: string | null;
  networkCode: string | null;
}

/**
 * The lock a delivery report and the send that stores the report's AT id both take first, in their
 * transactions: AT may report before the send's answer is written, and then the report is kept
 * (sms_early_reports) for the send to apply. With the lock, one of them always sees the other's commit.
 */
export async function lockAtMessageId(tx: Executor, organizationId: string, atMessageId: string) {
  await lockAtMessageIds(tx, [{ organizationId, atMessageId }]);
}

/** lockAtMessageId for a batch of sends, in one statement, the locks taken in one order (no two batches deadlock). */
export async function lockAtMessageIds(tx: Executor, ids: { organizationId: string; atMessageId: string }[]) {
  if (!ids.length) return;
  const keys = ids.map(({ organizationId, atMessageId }) => `sms-report:${organizationId}:${atMessageId}`);
  await tx.execute(sql`
    select pg_advisory_xact_lock(k.key)
    from (select hashtextextended(x, 0) as key from unnest(${sql.param(keys)}::text[]) as x order by 1) k`);
}

/**
 * A delivery report (id, status, phoneNumber, networkCode, failureReason, retryCount) moves the SMS's
 * message status. For an SMS whose send had no answer (decision 150) it also settles the held price:
 * Success charges it (once: chargeAccepted leaves a charged message alone), Failed/Rejected release it.
 * A report naming an id not stored yet is kept for the send that is about to store it.
 */
export async function receiveSmsDeliveryReport(token: string, form: URLSearchParams): Promise<CallbackAnswer> {
  const connection = await smsConnectionByToken(token);
  if (!connection) return unknownToken;
  const id = field(form, "id", 100);
  const status = field(form, "status", 40);
  if (!id) return bad("id is required");
  if (!DELIVERED.has(status) && !FAILED.has(status) && !IN_FLIGHT.has(status)) return bad("status is not a delivery status");
  const report: SmsReport = {
    status,
    failureReason: field(form, "failureReason", 200) || null,
    networkCode: field(form, "networkCode", 20) || null,
  };
  const { organizationId } = connection;
  await db().transaction(async (tx) => {
    await lockAtMessageId(tx, organizationId, id);
    const sms = await reportedSms(tx, organizationId, id, field(form, "phoneNumber", 20));
    if (sms) return applySmsReport(tx, organizationId, sms, report);
    // Not Jumbe's yet: a send whose answer is being written, or another tool's message on the same
    // AT application (housekeeping forgets it after two days).
    await tx
      .insert(smsEarlyReports)
      .values({ organizationId, atMessageId: id, ...report })
      .onConflictDoNothing();
  });
  return ok;
}

/**
 * In the sends' transaction, once they stored AT's ids (and under lockAtMessageIds): the reports that
 * came before, applied in order, in-flight ones before final ones (a final status is never taken back).
 */
export async function applyEarlyReportsOf(
  tx: Executor,
  sends: { organizationId: string; sms: { id: string; messageId: string }; atMessageId: string }[],
) {
  if (!sends.length) return;
  const early = await tx
    .delete(smsEarlyReports)
    .where(
      sql`(${smsEarlyReports.organizationId}, ${smsEarlyReports.atMessageId}) in (select * from unnest(${sql.param(
        sends.map((s) => s.organizationId),
      )}::uuid[], ${sql.param(sends.map((s) => s.atMessageId))}::text[]))`,
    )
    .returning();
  if (!early.length) return;
  const final = (r: SmsReport) => (IN_FLIGHT.has(r.status) ? 0 : 1);
  early.sort((a, b) => final(a) - final(b) || a.receivedAt.getTime() - b.receivedAt.getTime());
  const sendOf = new Map(sends.map((s) => [`${s.organizationId}:${s.atMessageId}`, s]));
  for (const report of early) {
    const send = sendOf.get(`${report.organizationId}:${report.atMessageId}`)!;
    await applySmsReport(tx, send.organizationId, send.sms, report);
  }
}

async function applySmsReport(tx: Executor, organizationId: string, sms: { id: string; messageId: string }, report: SmsReport) {
  const { status } = report;
  const now = new Date();
  const next = DELIVERED.has(status) ? "delivered" : FAILED.has(status) ? "failed" : "sent";
  const changed = await tx
    .update(messages)
    .set({
      status: next,
      ...(next === "delivered"
        ? { deliveredAt: now, acceptedAt: sql`coalesce(${messages.acceptedAt}, ${now.toISOString()}::timestamptz)` }
        : {}),
      ...(next === "failed" ? { failedAt: now, errorTitle: status, errorDetails: report.failureReason } : {}),
    })
    .where(
      and(
        eq(messages.id, sms.messageId),
        eq(messages.organizationId, organizationId),
        notInArray(messages.status, next === "sent" ? [...FINAL_STATUSES, "sent"] : FINAL_STATUSES),
      ),
    )
    .returning({ id: messages.id, acceptedAt: messages.acceptedAt });
  if (!changed.length) return;
  await tx
    .update(smsMessages)
    .set({ reportStatus: status, failureReason: report.failureReason, networkCode: report.networkCode, reportedAt: now })
    .where(eq(smsMessages.id, sms.id));
  if (next === "delivered") await chargeAccepted(tx, [sms.messageId]);
  if (next === "failed" && !changed[0]!.acceptedAt) await settleFailed(tx, [sms.messageId]);
  // The API's message.delivered and message.failed webhooks, as WhatsApp messages' (decision 150).
  if (next !== "sent")
    await enqueueMessageEvents(tx, [
      { organizationId, type: next === "delivered" ? "message.delivered" : "message.failed", messageId: sms.messageId },
    ]);
  await logMessageEvents(tx, "status", [sms.messageId]);
}

/** AT's incoming date ("2026-11-30 05:01:02", UTC), or now when missing or unreadable. */
function sentAtOf(date: string): Date {
  const parsed = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}/.test(date) ? new Date(`${date.replace(" ", "T").slice(0, 19)}Z`) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : new Date();
}

/**
 * A customer's SMS to the organisation's shortcode (from, to, text, date, id, linkId): a message with
 * channel `sms` in the contact's conversation (created with the contact when new). It does not open
 * WhatsApp's 24-hour window (Meta's, for WhatsApp messages only). STOP, ACHA… write the consent ledger.
 */
export async function receiveIncomingSms(token: string, form: URLSearchParams): Promise<CallbackAnswer> {
  const connection = await smsConnectionByToken(token);
  if (!connection) return unknownToken;
  const from = field(form, "from", 20);
  const id = field(form, "id", 100);
  const text = form.get("text") ?? "";
  if (!E164.test(from)) return bad("from must be a phone number in E.164 form");
  if (!id) return bad("id is required");
  if (text.length > 1600) return bad("text is longer than 1600 characters");
  const organizationId = connection.organizationId;
  const messageId = randomUUID();
  await db().transaction(async (tx) => {
    // Stored once: the same `id` again (AT retrying, a duplicate) stops here.
    const [fresh] = await tx
      .insert(smsMessages)
      .values({ organizationId, messageId, direction: "inbound", atMessageId: id, networkCode: field(form, "networkCode", 20) || null })
      .onConflictDoNothing()
      .returning({ id: smsMessages.id });
    if (!fresh) return;
    const contact = await contactByPhone(tx, organizationId, from);
    const conversation = await conversationForSms(tx, organizationId, contact.id);
    const sentAt = sentAtOf(field(form, "date", 40));
    await tx.insert(messages).values({
      id: messageId,
      organizationId,
      contactId: contact.id,
      direction: "inbound",
      status: "received",
      body: text,
      channel: "sms",
      phoneNumberId: conversation.phoneNumberId,
      messageType: "text",
      payload: { from, to: field(form, "to", 20), id, linkId: field(form, "linkId", 100) || null },
      sentAt,
      recipientPhone: from,
    });
    await tx
      .update(conversations)
      .set({
        lastMessageAt: sql`greatest(${conversations.lastMessageAt}, now())`,
        status: "open",
        resolvedAt: null,
        unreadCount: sql`${conversations.unreadCount} + 1`,
      })
      .where(eq(conversations.id, conversation.id));
    await logMessageEvents(tx, "message", [messageId]);
    await enqueueMessageEvents(tx, [{ organizationId, type: "message.received", messageId }]);
    const keyword = consentKeyword(text);
    if (keyword)
      await recordConsent(tx, [
        {
          organizationId,
          contactId: contact.id,
          status: keyword.status,
          source: "keyword",
          evidence: `"${text.slice(0, 60)}" by SMS (${id})`,
        },
      ]);
  });
  return ok;
}

/** AT's opt-out callback (senderId, phoneNumber): the person stopped this sender; the ledger says so once. */
export async function receiveSmsOptOut(token: string, form: URLSearchParams): Promise<CallbackAnswer> {
  const connection = await smsConnectionByToken(token);
  if (!connection) return unknownToken;
  const phone = field(form, "phoneNumber", 20);
  const sender = field(form, "senderId", 40);
  if (!E164.test(phone)) return bad("phoneNumber must be a phone number in E.164 form");
  await db().transaction(async (tx) => {
    const contact = await contactByPhone(tx, connection.organizationId, phone);
    if (contact.optIn === "opted_out") return;
    await recordConsent(tx, [
      {
        organizationId: connection.organizationId,
        contactId: contact.id,
        status: "opted_out",
        source: "keyword",
        evidence: `Opted out of SMS from ${sender || "the sender"} (Africa's Talking)`,
      },
    ]);
  });
  return ok;
}
