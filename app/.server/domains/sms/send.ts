import { and, eq, inArray, isNull, max, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { messageKeyTable, type MessageKey } from "../../infrastructure/db/message-keys";
import { contacts, conversations, messages, smsConnections, smsMessages } from "../../infrastructure/db/schema";
import { retryingTransientFaults } from "../../infrastructure/db/errors";
import { AfricastalkingError, africastalkingClient } from "../../infrastructure/clients/africastalking";
import { enqueueJob, enqueueKeyedJobs } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { chargeAccepted, chargeColumns, holdForQueued, insufficientBalanceText, sendPrice, settleFailed } from "../billing";
import { logMessageEvents } from "../messaging";
import { enqueueMessageEvents } from "../webhooks-out";
import { can } from "../auth";
import { smsConnectionOf, smsCredentials, type SmsActor, type SmsConnection } from "./connection";
import { inSmsQuietHours } from "./quiet-hours";
import { refuseSms, SMS_REFUSALS } from "./refusals";
import { applyEarlyReportsOf, lockAtMessageIds } from "./receivers";
import { SMS_MAX_LENGTH, smsEstimate } from "~/lib/sms-price";
import { groupBy, inParallel } from "~/lib/collections";
import { m } from "~/paraglide/messages";

/** The queue whose job hands a queued SMS to Africa's Talking (sms/jobs.ts). */
export const SMS_SEND_QUEUE = "sms.send";
/** The recurring search for SMS claimed for a send whose answers were never written (recoverUnansweredSms). */
export const SMS_RECOVER_QUEUE = "sms.recover-unanswered";
/** The later check of an SMS whose send had no answer (settleUnknownSms). */
export const SMS_SETTLE_QUEUE = "sms.settle-unknown";
/** How long AT's delivery reports may take before an unanswered send is taken as not sent: two days. */
export const SMS_UNKNOWN_AFTER_MS = 48 * 3_600_000;

const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/**
 * "Send as SMS" in the inbox (issue 77, decision 148): the text priced per part (sms-price.ts), its
 * price held on a prepaid wallet (refused with words when the wallet cannot cover it), stored as the
 * conversation's message with channel `sms`, and handed to AT by a job. Refused: no connection, a
 * customer with no number or who opted out, quiet hours.
 */
export async function queueInboxSms(
  actor: SmsActor,
  input: { conversationId: string; body: string },
  now: Date = new Date(),
): Promise<{ messageId: string; parts: number; priceCents: number }> {
  if (!can(actor.role, "inbox:reply")) throw refuseSms(403, "forbidden", SMS_REFUSALS.forbidden);
  const organizationId = actor.organization.id;
  const connection = await smsConnectionOf(organizationId);
  if (!connection) throw refuseSms(409, "not_connected", SMS_REFUSALS.notConnected);
  const body = input.body.trim();
  if (!body) throw refuseSms(422, "empty", m.sms_send_refusal_empty(), "body");
  if (body.length > SMS_MAX_LENGTH) throw refuseSms(422, "empty", m.sms_send_refusal_too_long({ max: SMS_MAX_LENGTH }), "body");
  if (!isUuid(input.conversationId)) throw refuseSms(404, "not_found", SMS_REFUSALS.notFound);
  const estimate = smsEstimate(body);
  const messageId = await db().transaction(async (tx) => {
    const [found] = await tx
      .select({
        id: conversations.id,
        phoneNumberId: conversations.phoneNumberId,
        contactId: contacts.id,
        phone: contacts.phone,
        optIn: contacts.optIn,
      })
      .from(conversations)
      .innerJoin(contacts, eq(contacts.id, conversations.contactId))
      .where(and(eq(conversations.organizationId, organizationId), eq(conversations.id, input.conversationId)))
      .limit(1);
    if (!found) throw refuseSms(404, "not_found", SMS_REFUSALS.notFound);
    return queueSmsIn(tx, organizationId, found, { body, source: "inbox", sentBy: actor.user.id }, now);
  });
  return { messageId, parts: estimate.parts, priceCents: estimate.priceCents };
}

/** Whom an SMS goes to: the conversation it is stored in and its contact. */
export interface SmsRecipientRow {
  id: string;
  phoneNumberId: string;
  contactId: string;
  phone: string | null;
  optIn: string | null;
}

/**
 * In the caller's transaction: the checks every SMS passes (a number, not opted out, not in quiet
 * hours, a wallet that holds its price), then the message stored `queued` with channel `sms` and its
 * job. Answers the message's id. The inbox and the API (api.ts) send through it.
 */
export async function queueSmsIn(
  tx: Executor,
  organizationId: string,
  found: SmsRecipientRow,
  input: { body: string; source: "inbox" | "api"; sentBy: string | null },
  now: Date,
): Promise<string> {
  const { body } = input;
  const estimate = smsEstimate(body);
  if (!found.phone) throw refuseSms(422, "no_phone", m.sms_send_refusal_no_phone());
  if (found.optIn === "opted_out") throw refuseSms(409, "opted_out", m.sms_send_refusal_opted_out());
  const [last] = await tx
    .select({ at: max(messages.sentAt) })
    .from(messages)
    .where(and(eq(messages.organizationId, organizationId), eq(messages.contactId, found.contactId), eq(messages.direction, "inbound")));
  if (inSmsQuietHours(now, last?.at ? new Date(last.at) : null)) throw refuseSms(409, "quiet_hours", m.sms_send_refusal_quiet_hours());
  const price = { ...(await sendPrice(tx, organizationId)), priceCents: estimate.priceCents };
  const held = await holdForQueued(tx, price, {
    organizationId,
    count: 1,
    description: `SMS to ${found.phone}, ${estimate.parts} part(s)`,
  });
  if (held < 1) throw refuseSms(402, "balance", insufficientBalanceText());
  const [inserted] = await tx
    .insert(messages)
    .values({
      organizationId,
      contactId: found.contactId,
      direction: "outbound",
      status: "queued",
      body,
      channel: "sms",
      phoneNumberId: found.phoneNumberId,
      messageType: "text",
      source: input.source,
      recipientPhone: found.phone,
      sentBy: input.sentBy,
      pricingCategory: "sms",
      ...chargeColumns(price),
    })
    .returning({ id: messages.id, createdAt: sql<string>`${messages.createdAt}::text` });
  await tx.update(conversations).set({ lastMessageAt: now }).where(eq(conversations.id, found.id));
  await logMessageEvents(tx, "message", [inserted!]);
  await enqueueJob(SMS_SEND_QUEUE, { messageId: inserted!.id }, { executor: tx, uniqueKey: `sms-send:${inserted!.id}` });
  return inserted!.id;
}

/** What AT's answer to one send says: accepted (its id and cost), refused (its words), or unknown (no answer). */
type SendOutcome = { messageId: string; cost: string } | { error: string } | { unknown: string };
type Delivered = "sent" | "failed" | "unknown" | "skipped";
type ClaimedSms = MessageKey & { organization_id: string; recipient_phone: string; body: string };

/**
 * A call that ended without a readable answer (a timeout, the network, a 5xx, nonsense) may have sent
 * the SMS (decision 150); a 4xx or a recipient's refusal is a definite no.
 */
const mayHaveSent = (error: unknown) =>
  error instanceof AfricastalkingError && ["timeout", "network", "server", "malformed"].includes(error.kind);

/** Recipients in one call to AT: one number once, and a failed call leaves at most this many unknown. */
const RECIPIENTS_PER_CALL = 100;
/** Calls to AT in flight at once, per batch (fetch keeps their connections alive). */
const CALLS_AT_ONCE = 8;

const digits = (phone: string) => phone.replace(/\D/g, "");

/** One call for SMS of one organisation with one text, each to another number: each one's outcome. */
async function callAt(connection: SmsConnection | null, group: ClaimedSms[]): Promise<Map<string, SendOutcome>> {
  const outcomes = new Map<string, SendOutcome>();
  try {
    if (!connection) throw new AfricastalkingError("SMS is no longer connected", 0, "refused");
    const answer = await africastalkingClient().sendSms({
      ...smsCredentials(connection),
      from: connection.senderId || undefined,
      to: group.map((sms) => sms.recipient_phone),
      message: group[0]!.body,
      enqueue: false,
    });
    const byNumber = new Map(answer.recipients.map((r) => [digits(r.number), r]));
    for (const sms of group) {
      const recipient = byNumber.get(digits(sms.recipient_phone));
      outcomes.set(
        sms.id,
        !recipient
          ? { unknown: "Not in Africa's Talking's answer" }
          : recipient.accepted && recipient.messageId
            ? { messageId: recipient.messageId, cost: recipient.cost }
            : { error: recipient.status || "Refused" },
      );
    }
  } catch (error) {
    log().warn(
      {
        messageIds: group.map((sms) => sms.id),
        err: error instanceof AfricastalkingError ? { kind: error.kind, status: error.httpStatus } : String(error),
      },
      "SMS not sent",
    );
    const words = error instanceof AfricastalkingError ? error.message.slice(0, 200) : "Not sent";
    for (const sms of group) outcomes.set(sms.id, mayHaveSent(error) ? { unknown: words } : { error: words });
  }
  return outcomes;
}

/** One SMS handed to AT (deliverQueuedSmsBatch for one): what came of it; `skipped` when it was not queued or already tried. */
export async function deliverQueuedSms(messageId: string): Promise<Delivered> {
  return (await deliverQueuedSmsBatch([messageId])).get(messageId) ?? "skipped";
}

/**
 * Hands queued SMS to AT, each at most once: the attempt is written before the call, so a job
 * retried after a crash (or run twice) never sends one again nor charges twice. SMS of one
 * organisation with the same text go in one call (up to RECIPIENTS_PER_CALL numbers), several calls
 * at once; the answers are written in one transaction. Accepted: charged (chargeAccepted), AT's id
 * stored for the reports. Refused: failed, its hold released. No answer (decision 150): `sent` with
 * the hold kept and no AT id; the first delivery report to its number settles it (receivers.ts), or
 * settleUnknownSms when none comes. Answers each claimed SMS's outcome.
 *
 * Between the claim and the answers' commit nothing but the calls may fail: the connections are read
 * before the claim, and the answers' transaction is tried again while the database refuses it for a
 * moment (a deadlock, a pool with no connection free). A claim whose answers were still not written
 * (the process died, the database stayed away) is found by recoverUnansweredSms once its time is up.
 */
export async function deliverQueuedSmsBatch(messageIds: readonly string[]): Promise<Map<string, Delivered>> {
  const ids = messageIds.filter(isUuid).map((id) => id.toLowerCase());
  if (!ids.length) return new Map();
  const connections = await connectionsFor(ids);
  const claimed = await queryRows<ClaimedSms>(
    db(),
    sql`
    update messages set attempts = 1, locked_until = now() + make_interval(secs => ${CLAIM_SECONDS})
    where id = any(${sql.param(ids)}::uuid[]) and channel = 'sms' and attempts = 0 and accepted_at is null and failed_at is null
    returning id, created_at::text as "createdAt", organization_id, recipient_phone, body`,
  );
  if (!claimed.length) return new Map();
  // In the order asked for (the statement answers in the table's): the first SMS to a number goes first.
  const order = new Map(ids.map((id, i) => [id, i]));
  claimed.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const calls: ClaimedSms[][] = [];
  for (const ofOrganisation of groupBy(claimed, (sms) => sms.organization_id).values())
    for (const sameText of groupBy(ofOrganisation, (sms) => sms.body).values()) calls.push(...oneNumberOnce(sameText));
  const outcomes = new Map<string, SendOutcome>();
  await inParallel(calls, CALLS_AT_ONCE, async (group) => {
    for (const [id, outcome] of await callAt(connections.get(group[0]!.organization_id) ?? null, group)) outcomes.set(id, outcome);
  });
  const written = await retryingTransientFaults(
    () => db().transaction((tx) => writeOutcomes(tx, claimed, outcomes)),
    WRITE_ATTEMPTS,
    (error, attempt) =>
      log().warn({ err: error, attempt, messageIds: claimed.map((sms) => sms.id) }, "SMS answers not written yet; trying again"),
  );
  return new Map(
    claimed.map((sms) => {
      const outcome = outcomes.get(sms.id)!;
      if (!written.has(sms.id)) return [sms.id, "skipped"];
      return [sms.id, "error" in outcome ? "failed" : "messageId" in outcome ? "sent" : "unknown"];
    }),
  );
}

/** How long a claim is left to its batch before recoverUnansweredSms takes it as sent without an answer. */
export const CLAIM_SECONDS = 600;
/** Tries of the answers' transaction, 0.2 s, 0.4 s... apart (about 25 s in all). */
const WRITE_ATTEMPTS = 8;

/** The SMS connections of the organisations whose SMS these are, in one statement. */
async function connectionsFor(ids: string[]): Promise<Map<string, SmsConnection>> {
  const rows = await db()
    .select()
    .from(smsConnections)
    .where(
      inArray(
        smsConnections.organizationId,
        db()
          .select({ organizationId: messages.organizationId })
          .from(messages)
          .where(and(inArray(messages.id, ids), eq(messages.channel, "sms"))),
      ),
    );
  return new Map(rows.map((row) => [row.organizationId, row]));
}

/**
 * SMS claimed for a send more than CLAIM_SECONDS ago whose answers were never written (the process
 * died between the claim and the commit, or the database stayed away past the retries): AT may have
 * sent them, so they are taken as sent without an answer (decision 150), never sent again: the hold
 * is kept, a delivery report to the number settles them, or settleUnknownSms two days later.
 * Answers how many it found. Run by the SMS sweep.
 */
export async function recoverUnansweredSms(limit = 500): Promise<number> {
  return db().transaction(async (tx) => {
    const stranded = await queryRows<ClaimedSms>(
      tx,
      sql`
      select id, created_at::text as "createdAt", organization_id, recipient_phone, body from messages
      where direction = 'outbound' and accepted_at is null and failed_at is null
        and channel = 'sms' and status = 'queued' and attempts = 1 and locked_until < now()
      order by id
      limit ${limit}
      for update skip locked`,
    );
    if (!stranded.length) return 0;
    log().warn({ messageIds: stranded.map((sms) => sms.id) }, "SMS claimed without an answer written: taken as sent without an answer");
    const unknown: SendOutcome = { unknown: "Africa's Talking's answer was not recorded" };
    await writeOutcomes(tx, stranded, new Map(stranded.map((sms) => [sms.id, unknown])));
    return stranded.length;
  });
}

/** Calls of at most RECIPIENTS_PER_CALL SMS, no number twice in one. */
function oneNumberOnce(sms: ClaimedSms[]): ClaimedSms[][] {
  const calls: { numbers: Set<string>; sms: ClaimedSms[] }[] = [];
  for (const one of sms) {
    const number = digits(one.recipient_phone);
    let call = calls.find((c) => c.sms.length < RECIPIENTS_PER_CALL && !c.numbers.has(number));
    if (!call) calls.push((call = { numbers: new Set(), sms: [] }));
    call.numbers.add(number);
    call.sms.push(one);
  }
  return calls.map((c) => c.sms);
}

/**
 * AT's answers, in one transaction: refused ones failed (holds released, `message.failed` events),
 * accepted and unknown ones `sent` with their sms_messages rows, accepted ones charged and their early
 * delivery reports applied (under each AT id's lock, taken first and in order: a report arriving now
 * waits for this commit), unknown ones given their later check. Only for SMS still queued, locked
 * (a claim recoverUnansweredSms took meanwhile is left as it settled it); answers their ids.
 */
async function writeOutcomes(tx: Executor, batch: ClaimedSms[], outcomes: Map<string, SendOutcome>): Promise<Set<string>> {
  const now = new Date();
  const atId = (sms: ClaimedSms) => {
    const outcome = outcomes.get(sms.id)!;
    return "messageId" in outcome ? outcome.messageId : null;
  };
  await lockAtMessageIds(
    tx,
    batch.flatMap((sms) => (atId(sms) === null ? [] : [{ organizationId: sms.organization_id, atMessageId: atId(sms)! }])),
  );
  // Only those still waiting for their answers: a claim recoverUnansweredSms took meanwhile is settled.
  const waiting = new Set(
    (
      await queryRows<{ id: string }>(
        tx,
        sql`select m.id from messages m join ${messageKeyTable(batch)} on m.id = k.id and m.created_at = k.created_at
            where m.status = 'queued' order by m.id for update of m`,
      )
    ).map((row) => row.id),
  );
  const claimed = batch.filter((sms) => waiting.has(sms.id));
  const failed = claimed.filter((sms) => "error" in outcomes.get(sms.id)!);
  const sent = claimed.filter((sms) => !("error" in outcomes.get(sms.id)!));
  if (failed.length) {
    await tx.execute(sql`
      update messages m set status = 'failed', failed_at = ${now.toISOString()}::timestamptz, error_title = f.words
      from unnest(${sql.param(failed.map((sms) => sms.id))}::uuid[], ${sql.param(failed.map((sms) => sms.createdAt))}::timestamptz[],
                  ${sql.param(failed.map((sms) => (outcomes.get(sms.id) as { error: string }).error))}::text[]) as f(id, created_at, words)
      where m.id = f.id and m.created_at = f.created_at`);
    await settleFailed(tx, failed);
    await enqueueMessageEvents(
      tx,
      failed.map((sms) => ({ organizationId: sms.organization_id, type: "message.failed" as const, messageId: sms.id })),
    );
  }
  if (sent.length) await writeSent(tx, sent, outcomes, now);
  if (claimed.length) await logMessageEvents(tx, "status", claimed);
  return waiting;
}

async function writeSent(tx: Executor, sent: ClaimedSms[], outcomes: Map<string, SendOutcome>, now: Date) {
  const outcomeOf = (sms: ClaimedSms) => outcomes.get(sms.id) as { messageId: string; cost: string } | { unknown: string };
  const atId = (sms: ClaimedSms) => {
    const outcome = outcomeOf(sms);
    return "messageId" in outcome ? outcome.messageId : null;
  };
  await tx.execute(sql`
    update messages m set status = 'sent', sent_at = ${now.toISOString()}::timestamptz,
      accepted_at = case when s.accepted then ${now.toISOString()}::timestamptz else m.accepted_at end,
      error_details = case when s.accepted then m.error_details else s.words end
    from unnest(${sql.param(sent.map((sms) => sms.id))}::uuid[], ${sql.param(sent.map((sms) => sms.createdAt))}::timestamptz[],
                ${sql.param(sent.map((sms) => atId(sms) !== null))}::boolean[],
                ${sql.param(sent.map((sms) => ("unknown" in outcomeOf(sms) ? (outcomeOf(sms) as { unknown: string }).unknown : null)))}::text[])
      as s(id, created_at, accepted, words)
    where m.id = s.id and m.created_at = s.created_at`);
  const stored = await tx
    .insert(smsMessages)
    .values(
      sent.map((sms) => {
        const estimate = smsEstimate(sms.body);
        const outcome = outcomeOf(sms);
        return {
          organizationId: sms.organization_id,
          messageId: sms.id,
          direction: "outbound" as const,
          atMessageId: atId(sms),
          parts: estimate.parts,
          priceCents: estimate.priceCents,
          atCost: "cost" in outcome ? outcome.cost : null,
        };
      }),
    )
    .returning({ id: smsMessages.id, messageId: smsMessages.messageId });
  const accepted = sent.filter((sms) => atId(sms) !== null);
  if (accepted.length) {
    await chargeAccepted(tx, accepted);
    const storedId = new Map(stored.map((row) => [row.messageId, row.id]));
    await applyEarlyReportsOf(
      tx,
      accepted.map((sms) => ({
        organizationId: sms.organization_id,
        sms: { id: storedId.get(sms.id)!, messageId: sms.id },
        atMessageId: atId(sms)!,
      })),
    );
  }
  await enqueueKeyedJobs(
    tx,
    SMS_SETTLE_QUEUE,
    sent.filter((sms) => atId(sms) === null).map((sms) => ({ payload: { messageId: sms.id }, uniqueKey: `sms-settle:${sms.id}` })),
    { delayMs: SMS_UNKNOWN_AFTER_MS },
  );
}

/**
 * The later check (decision 150): an SMS whose send had no answer and got no delivery report within
 * SMS_UNKNOWN_AFTER_MS is failed and its hold released (AT offers no status query). A report that
 * came first settled it already: nothing to do.
 */
export async function settleUnknownSms(messageId: string): Promise<"failed" | "settled"> {
  return db().transaction(async (tx) => {
    const [unknown] = await tx
      .select({ id: smsMessages.id })
      .from(smsMessages)
      .where(and(eq(smsMessages.messageId, messageId), eq(smsMessages.direction, "outbound"), isNull(smsMessages.atMessageId)))
      .for("update")
      .limit(1);
    if (!unknown) return "settled";
    const failed = await tx
      .update(messages)
      .set({ status: "failed", failedAt: new Date(), errorTitle: "No answer from Africa's Talking and no delivery report" })
      .where(and(eq(messages.id, messageId), isNull(messages.acceptedAt), isNull(messages.failedAt)))
      .returning({ id: messages.id, createdAt: sql<string>`${messages.createdAt}::text`, organizationId: messages.organizationId });
    if (!failed.length) return "settled";
    await settleFailed(tx, failed);
    await enqueueMessageEvents(tx, [{ organizationId: failed[0]!.organizationId, type: "message.failed", messageId }]);
    await logMessageEvents(tx, "status", failed);
    return "failed";
  });
}
