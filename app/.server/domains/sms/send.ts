import { and, eq, isNull, max } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { contacts, conversations, messages, smsMessages } from "../../infrastructure/db/schema";
import { AfricastalkingError, africastalkingClient } from "../../infrastructure/clients/africastalking";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { chargeAccepted, chargeColumns, holdForQueued, insufficientBalanceText, sendPrice, settleFailed } from "../billing";
import { logMessageEvents } from "../messaging";
import { enqueueMessageEvents } from "../webhooks-out";
import { can } from "../auth";
import { smsConnectionOf, smsCredentials, type SmsActor } from "./connection";
import { inSmsQuietHours } from "./quiet-hours";
import { refuseSms, SMS_REFUSALS } from "./refusals";
import { applyEarlyReports, lockAtMessageId } from "./receivers";
import { SMS_MAX_LENGTH, smsEstimate } from "~/lib/sms-price";
import { m } from "~/paraglide/messages";

/** The queue whose job hands a queued SMS to Africa's Talking (sms/jobs.ts). */
export const SMS_SEND_QUEUE = "sms.send";
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
    .returning({ id: messages.id });
  await tx.update(conversations).set({ lastMessageAt: now }).where(eq(conversations.id, found.id));
  await logMessageEvents(tx, "message", [inserted!.id]);
  await enqueueJob(SMS_SEND_QUEUE, { messageId: inserted!.id }, { executor: tx, uniqueKey: `sms-send:${inserted!.id}` });
  return inserted!.id;
}

/** What AT's answer to one send says: accepted (its id and cost), refused (its words), or unknown (no answer). */
type SendOutcome = { messageId: string; cost: string } | { error: string } | { unknown: string };

/**
 * A call that ended without a readable answer (a timeout, the network, a 5xx, nonsense) may have sent
 * the SMS (decision 150); a 4xx or a recipient's refusal is a definite no.
 */
const mayHaveSent = (error: unknown) =>
  error instanceof AfricastalkingError && ["timeout", "network", "server", "malformed"].includes(error.kind);

async function callAt(claimed: typeof messages.$inferSelect): Promise<SendOutcome> {
  const connection = await smsConnectionOf(claimed.organizationId);
  try {
    if (!connection) throw new AfricastalkingError("SMS is no longer connected", 0, "refused");
    const answer = await africastalkingClient().sendSms({
      ...smsCredentials(connection),
      from: connection.senderId || undefined,
      to: [claimed.recipientPhone!],
      message: claimed.body,
      enqueue: false,
    });
    const recipient = answer.recipients[0];
    return recipient?.accepted && recipient.messageId
      ? { messageId: recipient.messageId, cost: recipient.cost }
      : { error: recipient?.status ?? "Refused" };
  } catch (error) {
    log().warn(
      { messageId: claimed.id, err: error instanceof AfricastalkingError ? { kind: error.kind, status: error.httpStatus } : String(error) },
      "SMS not sent",
    );
    const words = error instanceof AfricastalkingError ? error.message.slice(0, 200) : "Not sent";
    return mayHaveSent(error) ? { unknown: words } : { error: words };
  }
}

/**
 * Hands a queued SMS to AT, at most once: the attempt is written before the call, so a job retried
 * after a crash (or run twice) never sends it again nor charges twice. Accepted: charged
 * (chargeAccepted), AT's id stored for the reports. Refused: failed, its hold released. No answer
 * (decision 150): `sent` with the hold kept and no AT id; the first delivery report to its number
 * settles it (receivers.ts), or settleUnknownSms when none comes.
 */
export async function deliverQueuedSms(messageId: string): Promise<"sent" | "failed" | "unknown" | "skipped"> {
  const [claimed] = await db()
    .update(messages)
    .set({ attempts: 1 })
    .where(
      and(
        eq(messages.id, messageId),
        eq(messages.channel, "sms"),
        eq(messages.attempts, 0),
        isNull(messages.acceptedAt),
        isNull(messages.failedAt),
      ),
    )
    .returning();
  if (!claimed) return "skipped";
  const outcome = await callAt(claimed);
  const estimate = smsEstimate(claimed.body);
  await db().transaction(async (tx) => {
    const now = new Date();
    if ("error" in outcome) {
      await tx.update(messages).set({ status: "failed", failedAt: now, errorTitle: outcome.error }).where(eq(messages.id, messageId));
      await settleFailed(tx, [messageId]);
      await enqueueMessageEvents(tx, [{ organizationId: claimed.organizationId, type: "message.failed", messageId }]);
    } else {
      const accepted = "messageId" in outcome;
      // First: a delivery report for this id that arrives now waits for this commit, and one that
      // came before the answer was written is applied below.
      if (accepted) await lockAtMessageId(tx, claimed.organizationId, outcome.messageId);
      await tx
        .update(messages)
        .set({ status: "sent", sentAt: now, ...(accepted ? { acceptedAt: now } : { errorDetails: outcome.unknown }) })
        .where(eq(messages.id, messageId));
      const [stored] = await tx
        .insert(smsMessages)
        .values({
          organizationId: claimed.organizationId,
          messageId,
          direction: "outbound",
          atMessageId: accepted ? outcome.messageId : null,
          parts: estimate.parts,
          priceCents: estimate.priceCents,
          atCost: accepted ? outcome.cost : null,
        })
        .returning({ id: smsMessages.id });
      if (accepted) {
        await chargeAccepted(tx, [messageId]);
        await applyEarlyReports(tx, claimed.organizationId, { id: stored!.id, messageId }, outcome.messageId);
      } else
        await enqueueJob(
          SMS_SETTLE_QUEUE,
          { messageId },
          { executor: tx, delayMs: SMS_UNKNOWN_AFTER_MS, uniqueKey: `sms-settle:${messageId}` },
        );
    }
    await logMessageEvents(tx, "status", [messageId]);
  });
  return "error" in outcome ? "failed" : "messageId" in outcome ? "sent" : "unknown";
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
      .returning({ id: messages.id, organizationId: messages.organizationId });
    if (!failed.length) return "settled";
    await settleFailed(tx, [messageId]);
    await enqueueMessageEvents(tx, [{ organizationId: failed[0]!.organizationId, type: "message.failed", messageId }]);
    await logMessageEvents(tx, "status", [messageId]);
    return "failed";
  });
}
