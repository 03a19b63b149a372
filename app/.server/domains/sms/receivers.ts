import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { wakeWorkers } from "../../infrastructure/jobs/worker";
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
export async function lockAtMessageIds(tx: Executor, ids: readonly { organizationId: string; atMessageId: string }[]) {
  if (!ids.length) return;
  const keys = ids.map(({ organizationId, atMessageId }) => `sms-report:${organizationId}:${atMessageId}`);
  await tx.execute(sql`
    select pg_advisory_xact_lock(k.key)
    from (select hashtextextended(x, 0) as key from unnest(${sql.param(keys)}::text[]) as x order by 1) k`);
}

/** The queue AT's delivery reports wait in, to be applied by the batch (applySmsReports). */
export const SMS_REPORT_QUEUE = "sms.report";

/** A delivery report as its callback queued it. */
export interface QueuedSmsReport extends SmsReport {
  organizationId: string;
  atMessageId: string;
  phone: string;
  receivedAt: string;
  /** Its place among reports received in the same millisecond (its job's id). */
  seq?: number;
}

/**
 * A delivery report (id, status, phoneNumber, networkCode, failureReason, retryCount), checked and
 * queued: one insert, so that AT's bursts of reports (ten thousand in the two minutes after a
 * campaign's fallback) never hold the database's connections, and are applied by the batch
 * (applySmsReports). The same report again while it waits is queued once.
 */
export async function receiveSmsDeliveryReport(token: string, form: URLSearchParams): Promise<CallbackAnswer> {
  const connection = await smsConnectionByToken(token);
  if (!connection) return unknownToken;
  const id = field(form, "id", 100);
  const status = field(form, "status", 40);
  if (!id) return bad("id is required");
  if (!DELIVERED.has(status) && !FAILED.has(status) && !IN_FLIGHT.has(status)) return bad("status is not a delivery status");
  const { organizationId } = connection;
  const report: QueuedSmsReport = {
    organizationId,
    atMessageId: id,
    phone: field(form, "phoneNumber", 20),
    status,
    failureReason: field(form, "failureReason", 200) || null,
    networkCode: field(form, "networkCode", 20) || null,
    receivedAt: new Date().toISOString(),
  };
  await enqueueJob(SMS_REPORT_QUEUE, report, { uniqueKey: `sms-report:${organizationId}:${id}:${status}` });
  wakeWorkers();
  return ok;
}

/**
 * Queued delivery reports, in one transaction: each AT id's lock taken first and in order (the send
 * that stores an id takes it too), the SMS they name found in one statement (or, decision 150, the
 * oldest one to that number whose send had no answer, now named), and applied together
 * (applyReports). A report naming no SMS of Jumbe's yet is kept (sms_early_reports) for the send
 * that is about to store its id, or forgotten by housekeeping after two days (another tool's).
 */
export async function applySmsReports(reports: readonly QueuedSmsReport[]) {
  if (!reports.length) return;
  await db().transaction(async (tx) => {
    await lockAtMessageIds(tx, reports);
    const key = (organizationId: string, atMessageId: string) => `${organizationId}:${atMessageId}`;
    const named = await queryRows<{ id: string; message_id: string; organization_id: string; at_message_id: string }>(
      tx,
      sql`
      select s.id, s.message_id, s.organization_id, s.at_message_id
      from sms_messages s
      join unnest(${sql.param(reports.map((r) => r.organizationId))}::uuid[], ${sql.param(reports.map((r) => r.atMessageId))}::text[]) as r(o, a)
        on s.organization_id = r.o and s.at_message_id = r.a
      where s.direction = 'outbound'`,
    );
    const smsOf = new Map(named.map((row) => [key(row.organization_id, row.at_message_id), { id: row.id, messageId: row.message_id }]));
    const items: ReportOf[] = [];
    const early: QueuedSmsReport[] = [];
    for (const report of inOrder(reports)) {
      const k = key(report.organizationId, report.atMessageId);
      if (!smsOf.has(k)) {
        const sms = await reportedSms(tx, report.organizationId, report.atMessageId, report.phone);
        if (sms) smsOf.set(k, sms);
      }
      const sms = smsOf.get(k);
      if (sms) items.push({ organizationId: report.organizationId, sms, report: { ...report, receivedAt: new Date(report.receivedAt) } });
      else early.push(report);
    }
    if (early.length)
      await tx
        .insert(smsEarlyReports)
        .values(
          early.map((r) => ({
            organizationId: r.organizationId,
            atMessageId: r.atMessageId,
            status: r.status,
            failureReason: r.failureReason,
            networkCode: r.networkCode,
            receivedAt: new Date(r.receivedAt),
          })),
        )
        .onConflictDoNothing();
    await applyReports(tx, items);
  });
}

/** In-flight reports before final ones (a final status is never taken back), each kind in the order they came. */
function inOrder<R extends { status: string; receivedAt: string | Date; seq?: number }>(reports: readonly R[]): R[] {
  const final = (r: R) => (IN_FLIGHT.has(r.status) ? 0 : 1);
  const at = (r: R) => new Date(r.receivedAt).getTime();
  return [...reports].sort((a, b) => final(a) - final(b) || at(a) - at(b) || (a.seq ?? 0) - (b.seq ?? 0));
}

/**
 * In the sends' transaction, once they stored AT's ids (and under lockAtMessageIds): the reports that
 * came before, applied as the queued ones are.
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
  const sendOf = new Map(sends.map((s) => [`${s.organizationId}:${s.atMessageId}`, s]));
  await applyReports(
    tx,
    early.map((report) => {
      const send = sendOf.get(`${report.organizationId}:${report.atMessageId}`)!;
      return { organizationId: send.organizationId, sms: send.sms, report };
    }),
  );
}

/** A report and the outbound SMS it names. */
interface ReportOf {
  organizationId: string;
  sms: { id: string; messageId: string };
  report: SmsReport & { receivedAt: Date; seq?: number };
}

/**
 * Reports applied by the batch: for each SMS, what its reports come to (the first final one, or else
 * the last in flight) moves its message (never out of a final status), in one statement; then its
 * report columns, the charge of those delivered (once: chargeAccepted leaves a charged message alone),
 * the release of those failed without an answer (decision 150), the API's `message.delivered` and
 * `message.failed` webhooks, and the inbox's log (one lock an organisation for the whole batch).
 */
async function applyReports(tx: Executor, items: ReportOf[]) {
  const bySms = new Map<string, ReportOf>();
  for (const item of inOrder(items.map((i) => ({ ...i, status: i.report.status, receivedAt: i.report.receivedAt, seq: i.report.seq })))) {
    const seen = bySms.get(item.sms.messageId);
    if (seen && !IN_FLIGHT.has(seen.report.status)) continue;
    bySms.set(item.sms.messageId, item);
  }
  const chosen = [...bySms.values()];
  if (!chosen.length) return;
  const nextOf = (status: string) => (DELIVERED.has(status) ? "delivered" : FAILED.has(status) ? "failed" : "sent");
  const col = <T>(pick: (item: ReportOf) => T) => sql.param(chosen.map(pick));
  const changed = await queryRows<{ id: string; createdAt: string; next: "delivered" | "failed" | "sent"; accepted: boolean }>(
    tx,
    sql`
    update messages m set status = r.next,
      delivered_at = case when r.next = 'delivered' then r.at else m.delivered_at end,
      accepted_at = case when r.next = 'delivered' then coalesce(m.accepted_at, r.at) else m.accepted_at end,
      failed_at = case when r.next = 'failed' then r.at else m.failed_at end,
      error_title = case when r.next = 'failed' then r.status else m.error_title end,
      error_details = case when r.next = 'failed' then r.reason else m.error_details end
    from unnest(${col((i) => i.sms.messageId)}::uuid[], ${col((i) => i.organizationId)}::uuid[], ${col((i) => nextOf(i.report.status))}::text[],
                ${col((i) => i.report.status)}::text[], ${col((i) => i.report.failureReason)}::text[],
                ${col((i) => i.report.receivedAt.toISOString())}::timestamptz[]) as r(id, org, next, status, reason, at)
    where m.id = r.id and m.organization_id = r.org and m.status not in ('delivered', 'failed')
      and (r.next <> 'sent' or m.status <> 'sent')
    returning m.id, m.created_at::text as "createdAt", r.next, m.accepted_at is not null as accepted`,
  );
  if (!changed.length) return;
  const moved = changed.map((row) => bySms.get(row.id)!);
  const param = <T>(pick: (item: ReportOf) => T) => sql.param(moved.map(pick));
  await tx.execute(sql`
    update sms_messages s set report_status = r.status, failure_reason = r.reason, network_code = r.network, reported_at = r.at
    from unnest(${param((i) => i.sms.id)}::uuid[], ${param((i) => i.report.status)}::text[], ${param((i) => i.report.failureReason)}::text[],
                ${param((i) => i.report.networkCode)}::text[], ${param((i) => i.report.receivedAt.toISOString())}::timestamptz[])
      as r(id, status, reason, network, at)
    where s.id = r.id`);
  await chargeAccepted(
    tx,
    changed.filter((row) => row.next === "delivered"),
  );
  await settleFailed(
    tx,
    changed.filter((row) => row.next === "failed" && !row.accepted),
  );
  await enqueueMessageEvents(
    tx,
    changed
      .filter((row) => row.next !== "sent")
      .map((row) => ({
        organizationId: bySms.get(row.id)!.organizationId,
        type: row.next === "delivered" ? ("message.delivered" as const) : ("message.failed" as const),
        messageId: row.id,
      })),
  );
  await logMessageEvents(tx, "status", changed);
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
    const [inserted] = await tx
      .insert(messages)
      .values({
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
      })
      .returning({ id: messages.id, createdAt: sql<string>`${messages.createdAt}::text` });
    await tx
      .update(conversations)
      .set({
        lastMessageAt: sql`greatest(${conversations.lastMessageAt}, now())`,
        status: "open",
        resolvedAt: null,
        unreadCount: sql`${conversations.unreadCount} + 1`,
      })
      .where(eq(conversations.id, conversation.id));
    await logMessageEvents(tx, "message", [inserted!]);
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
