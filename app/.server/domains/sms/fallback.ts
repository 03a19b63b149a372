import { and, eq, inArray, isNull, lte, max, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { campaigns, contacts, conversations, messages, smsConnections, smsFallbacks } from "../../infrastructure/db/schema";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { chargeColumns, holdForQueued, sendPrice } from "../billing";
import { logMessageEvents, type StatusChange } from "../messaging";
import { fillPlaceholders, parameterValue } from "../campaigns";
import { contactByPhone, conversationForSms } from "./conversation";
import { inSmsQuietHours, nairobiHour, SMS_QUIET_UNTIL_HOUR } from "./quiet-hours";
import { SMS_SEND_QUEUE, deliverQueuedSms } from "./send";
import { SMS_MAX_LENGTH, smsEstimate } from "~/lib/sms-price";

/** The queue whose jobs claim one pending fallback each (and send its SMS). */
export const SMS_FALLBACK_QUEUE = "sms.fallback";
/** The recurring sweep: messages not delivered in their campaign's time, and pending fallbacks come due. */
export const SMS_FALLBACK_SWEEP_QUEUE = "sms.fallback-sweep";
export const SMS_FALLBACK_SWEEP_EVERY_SECONDS = 30;

/**
 * Meta's errors that mean WhatsApp did not and will not reach the person with this message, so an
 * SMS may (the WhatsApp Cloud API's error codes; /work/shared/reference/whatsapp-cloud-api.md §5):
 * - 131026 "Message undeliverable": not on WhatsApp, an old app, Meta's terms not accepted, blocked
 *   the business (usually a `failed` status, sometimes at once);
 * - 131049 "not delivered to maintain healthy ecosystem engagement": Meta's cap on marketing
 *   messages a person gets; WhatsApp will not deliver it, SMS is another channel;
 * - 130472 the person is in Meta's marketing experiment (held back).
 * Not 131050 (the person stopped marketing messages: their choice, no SMS instead), nor errors of
 * the business's own (token, template, payment method, rate limits), which SMS would only hide.
 */
export const UNDELIVERABLE_CODES = [131026, 131049, 130472] as const;

/** A message accepted longer ago than this is not swept (a day's bound and margin). */
const SWEEP_HORIZON_HOURS = 48;
const SWEEP_BATCH = 1000;

const DELIVERED = ["delivered", "read", "played"];

/**
 * Statuses that moved (in the writer's transaction, under the messages' locks): a campaign message
 * that failed with an undeliverable error gets its fallback (once: the unique source), and one
 * delivered or read cancels a fallback still pending, or notes that the SMS had already gone.
 */
export async function fallbackOnStatusChanges(tx: Executor, changes: StatusChange[]) {
  const failed = changes.filter((c) => c.status === "failed" && c.campaignId).map((c) => c.id);
  // An automation's template may have one armed (decision 159).
  const armed = changes.filter((c) => c.status === "failed" && !c.campaignId && c.template).map((c) => c.id);
  // Only a campaign's messages and templates have fallbacks: an inbox reply's "delivered" costs no statement here.
  const delivered = changes.filter((c) => DELIVERED.includes(c.status) && (c.campaignId || c.template)).map((c) => c.id);
  if (failed.length) await queueFailedFallbacks(tx, failed);
  if (armed.length) await dueArmedFallbacks(tx, armed);
  if (delivered.length) await cancelDelivered(tx, delivered);
}

/** An automation's armed fallback whose message Meta failed as undeliverable is due now (and gets its job). */
async function dueArmedFallbacks(tx: Executor, messageIds: string[]) {
  const due = await queryRows<{ id: string }>(
    tx,
    sql`
    update sms_fallbacks f set trigger = 'failed', due_at = now()
    from messages m
    where f.source_message_id = any(${sql.param(messageIds)}::uuid[]) and f.state = 'pending' and f.automation is not null
      and m.id = f.source_message_id and m.error_code = any(${sql.param([...UNDELIVERABLE_CODES])}::int[])
    returning f.id`,
  );
  await enqueueFallbackJobs(
    tx,
    due.map((r) => r.id),
  );
}

async function queueFailedFallbacks(tx: Executor, messageIds: string[]) {
  const made = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into sms_fallbacks (organization_id, source_message_id, campaign_id, trigger)
    select m.organization_id, m.id, m.campaign_id, 'failed'
    from messages m join campaigns c on c.id = m.campaign_id
    where m.id = any(${sql.param(messageIds)}::uuid[]) and c.sms_fallback is not null and m.channel = 'whatsapp'
      and m.error_code = any(${sql.param([...UNDELIVERABLE_CODES])}::int[])
    on conflict (source_message_id) do nothing
    returning id`,
  );
  await enqueueFallbackJobs(
    tx,
    made.map((r) => r.id),
  );
}

async function cancelDelivered(tx: Executor, messageIds: string[]) {
  await tx
    .update(smsFallbacks)
    .set({ state: "cancelled", reason: "delivered", decidedAt: new Date() })
    .where(and(inArray(smsFallbacks.sourceMessageId, messageIds), eq(smsFallbacks.state, "pending")));
  await tx
    .update(smsFallbacks)
    .set({ whatsappLateAt: new Date() })
    .where(and(inArray(smsFallbacks.sourceMessageId, messageIds), eq(smsFallbacks.state, "sent"), isNull(smsFallbacks.whatsappLateAt)));
}

/** One job a fallback, in the caller's transaction (a fallback's job is not doubled while it waits). */
async function enqueueFallbackJobs(tx: Executor, ids: string[]) {
  if (!ids.length) return;
  await tx.execute(sql`
    insert into jobs (queue, payload, run_at, unique_key)
    select ${SMS_FALLBACK_QUEUE}, jsonb_build_object('fallbackId', f.id), now(), 'sms-fallback:' || f.id
    from unnest(${sql.param(ids)}::uuid[]) as f(id)
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing`);
}

/**
 * The sweep (every SMS_FALLBACK_SWEEP_EVERY_SECONDS): campaign messages WhatsApp accepted but has not
 * delivered within their campaign's time (accepted, no status yet or only `sent`) get their fallback, and every pending fallback whose time
 * has come (one moved past quiet hours, one whose job was lost) gets a job. Answers how many it made.
 */
export async function sweepFallbacks(now: Date = new Date()): Promise<number> {
  let made = 0;
  for (;;) {
    const rows = await queryRows<{ id: string }>(
      db(),
      sql`
      insert into sms_fallbacks (organization_id, source_message_id, campaign_id, trigger, due_at)
      select m.organization_id, m.id, m.campaign_id, 'not_delivered', ${now.toISOString()}::timestamptz
      from campaigns c join messages m on m.campaign_id = c.id
      where c.sms_fallback is not null and c.started_at > ${now.toISOString()}::timestamptz - make_interval(hours => ${SWEEP_HORIZON_HOURS})
        and m.channel = 'whatsapp' and m.status in ('queued', 'sent') and m.accepted_at is not null and m.delivered_at is null
        and m.accepted_at <= ${now.toISOString()}::timestamptz - make_interval(mins => (c.sms_fallback ->> 'afterMinutes')::int)
        and not exists (select 1 from sms_fallbacks f where f.source_message_id = m.id)
      limit ${SWEEP_BATCH}
      on conflict (source_message_id) do nothing
      returning id`,
    );
    made += rows.length;
    if (rows.length < SWEEP_BATCH) break;
  }
  const due = await db()
    .select({ id: smsFallbacks.id })
    .from(smsFallbacks)
    .where(and(eq(smsFallbacks.state, "pending"), lte(smsFallbacks.dueAt, now)))
    .limit(10_000);
  await enqueueFallbackJobs(
    db(),
    due.map((r) => r.id),
  );
  return made;
}

type Decision = { state: "sent"; smsMessageId: string } | { state: "cancelled" | "skipped"; reason: string } | { state: "later"; at: Date };

/**
 * Claims one pending fallback and sends its SMS, at most once: the source message's row is locked
 * first (as the status writer locks it), then the fallback's; a delivered WhatsApp message cancels
 * it, anything else decides it in the same transaction (the SMS queued with its job, or skipped
 * with why). A second run finds it decided and does nothing. The SMS is handed to Africa's Talking
 * at once (its own job stays as the backstop; deliverQueuedSms claims it once).
 */
export async function runFallback(fallbackId: string, now: Date = new Date()): Promise<Decision["state"] | "none"> {
  const decision = await db().transaction(async (tx) => {
    const [source] = await queryRows<{ id: string; status: string }>(
      tx,
      sql`select m.id, m.status from messages m
          where m.id = (select f.source_message_id from sms_fallbacks f where f.id = ${fallbackId}) for update`,
    );
    if (!source) return null;
    const [fallback] = await tx
      .select()
      .from(smsFallbacks)
      .where(and(eq(smsFallbacks.id, fallbackId), eq(smsFallbacks.state, "pending")))
      .for("update");
    if (!fallback) return null;
    const decided: Decision = DELIVERED.includes(source.status)
      ? { state: "cancelled", reason: "delivered" }
      : await decideAndQueue(tx, fallback, now);
    if (decided.state === "later") await tx.update(smsFallbacks).set({ dueAt: decided.at }).where(eq(smsFallbacks.id, fallbackId));
    else
      await tx
        .update(smsFallbacks)
        .set({
          state: decided.state,
          reason: "reason" in decided ? decided.reason : null,
          smsMessageId: "smsMessageId" in decided ? decided.smsMessageId : null,
          decidedAt: now,
        })
        .where(eq(smsFallbacks.id, fallbackId));
    return decided;
  });
  if (!decision) return "none";
  if (decision.state === "sent") await deliverQueuedSms(decision.smsMessageId);
  return decision.state;
}

type FallbackRow = typeof smsFallbacks.$inferSelect;

/** What one fallback comes to: its SMS queued (price held), or why not, or when to try again. */
async function decideAndQueue(tx: Executor, fallback: FallbackRow, now: Date): Promise<Decision> {
  const [source] = await tx.select().from(messages).where(eq(messages.id, fallback.sourceMessageId)).limit(1);
  if (!source?.recipientPhone) return { state: "skipped", reason: "no_phone" };
  const armed = fallback.automation ? armedState(source, fallback, now) : null;
  if (armed) return armed;
  const [connected] = await tx
    .select({ id: smsConnections.id })
    .from(smsConnections)
    .where(eq(smsConnections.organizationId, fallback.organizationId))
    .limit(1);
  if (!connected) return { state: "skipped", reason: "not_connected" };
  const contact = source.contactId
    ? (await tx.select().from(contacts).where(eq(contacts.id, source.contactId)).limit(1))[0]
    : await contactByPhone(tx, fallback.organizationId, source.recipientPhone).then(async (found) => {
        return (await tx.select().from(contacts).where(eq(contacts.id, found.id)).limit(1))[0];
      });
  if (!contact) return { state: "skipped", reason: "no_phone" };
  if (contact.optIn === "opted_out") return { state: "skipped", reason: "opted_out" };
  const body = fallback.automation ? (fallback.body ?? "").trim() : await campaignSmsText(tx, fallback, source, contact);
  if (body === null) return { state: "skipped", reason: "no_phone" };
  if (!body || body.length > SMS_MAX_LENGTH) return { state: "skipped", reason: "too_long" };
  const [last] = await tx
    .select({ at: max(messages.sentAt) })
    .from(messages)
    .where(
      and(eq(messages.organizationId, fallback.organizationId), eq(messages.contactId, contact.id), eq(messages.direction, "inbound")),
    );
  if (inSmsQuietHours(now, last?.at ? new Date(last.at) : null)) return { state: "later", at: quietHoursEnd(now) };
  const smsMessageId = await queueFallbackSms(tx, { fallback, source, contactId: contact.id, body, now });
  return smsMessageId ? { state: "sent", smsMessageId } : { state: "skipped", reason: "balance" };
}

/** A campaign's SMS for this person (its text with their values); null when the campaign has no fallback. */
async function campaignSmsText(
  tx: Executor,
  fallback: FallbackRow,
  source: typeof messages.$inferSelect,
  contact: typeof contacts.$inferSelect,
): Promise<string | null> {
  const [campaign] = fallback.campaignId
    ? await tx
        .select({ smsFallback: campaigns.smsFallback, parameters: campaigns.parameters })
        .from(campaigns)
        .where(eq(campaigns.id, fallback.campaignId))
        .limit(1)
    : [];
  if (!campaign?.smsFallback) return null;
  const fields = { name: contact.name, phone: source.recipientPhone ?? "", attributes: contact.attributes ?? null };
  const values = campaign.parameters.body.map((s) => parameterValue(s, fields));
  return fillPlaceholders(campaign.smsFallback.text, values, campaign.smsFallback.named).trim();
}

/** How long an automation's armed fallback waits for its message to be accepted by Meta before it gives up. */
const ARMED_HORIZON_MS = SWEEP_HORIZON_HOURS * 3_600_000;

/**
 * An automation's armed fallback (decision 159) is due by its time or by Meta's failure: a message
 * failed for another reason (the person stopped marketing, the business's own error) gets no SMS;
 * one not yet handed to Meta waits (a few minutes more, up to two days). Null: go on and send.
 */
function armedState(source: typeof messages.$inferSelect, fallback: FallbackRow, now: Date): Decision | null {
  if (source.status === "failed")
    return source.errorCode !== null && (UNDELIVERABLE_CODES as readonly number[]).includes(source.errorCode)
      ? null
      : { state: "skipped", reason: "not_undeliverable" };
  if (source.acceptedAt) return null;
  if (now.getTime() - fallback.createdAt.getTime() > ARMED_HORIZON_MS) return { state: "skipped", reason: "not_sent" };
  return { state: "later", at: new Date(now.getTime() + 5 * 60_000) };
}

/** The SMS as the conversation's message (channel sms), its price held, its job queued; null when the wallet cannot pay. */
async function queueFallbackSms(
  tx: Executor,
  input: { fallback: FallbackRow; source: typeof messages.$inferSelect; contactId: string; body: string; now: Date },
): Promise<string | null> {
  const { fallback, source, contactId, body, now } = input;
  const estimate = smsEstimate(body);
  const price = { ...(await sendPrice(tx, fallback.organizationId)), priceCents: estimate.priceCents };
  const held = await holdForQueued(tx, price, {
    organizationId: fallback.organizationId,
    count: 1,
    description: `SMS fallback to ${source.recipientPhone}, ${estimate.parts} part(s)`,
  });
  if (held < 1) return null;
  const conversation = await conversationForSms(tx, fallback.organizationId, contactId);
  const [inserted] = await tx
    .insert(messages)
    .values({
      organizationId: fallback.organizationId,
      contactId,
      direction: "outbound",
      status: "queued",
      body,
      channel: "sms",
      phoneNumberId: conversation.phoneNumberId,
      messageType: "text",
      source: source.source,
      recipientPhone: source.recipientPhone,
      pricingCategory: "sms",
      ...chargeColumns(price),
    })
    .returning({ id: messages.id });
  await tx.update(conversations).set({ lastMessageAt: now }).where(eq(conversations.id, conversation.id));
  await logMessageEvents(tx, "message", [inserted!.id]);
  await enqueueJob(SMS_SEND_QUEUE, { messageId: inserted!.id }, { executor: tx, uniqueKey: `sms-send:${inserted!.id}` });
  return inserted!.id;
}

/** The next 08:00 in Nairobi after `now` (quiet hours end). */
export function quietHoursEnd(now: Date): Date {
  const hour = nairobiHour(now);
  const hoursAhead = (SMS_QUIET_UNTIL_HOUR - hour + 24) % 24 || 24;
  const at = new Date(now.getTime() + hoursAhead * 3_600_000);
  at.setUTCMinutes(0, 0, 0);
  return at;
}

/**
 * A campaign's SMS fallback for its page, in one statement: its time and its fallbacks by state (SMS
 * sent, waiting, cancelled because WhatsApp delivered, skipped); null when it has none (or it is
 * another tenant's).
 */
export async function campaignFallbackSummary(organizationId: string, campaignId: string) {
  const [row] = await queryRows<{ after_minutes: number; sent: number; pending: number; cancelled: number; skipped: number }>(
    db(),
    sql`
    select (c.sms_fallback ->> 'afterMinutes')::int as after_minutes,
           (count(f.id) filter (where f.state = 'sent'))::int as sent,
           (count(f.id) filter (where f.state = 'pending'))::int as pending,
           (count(f.id) filter (where f.state = 'cancelled'))::int as cancelled,
           (count(f.id) filter (where f.state = 'skipped'))::int as skipped
    from campaigns c left join sms_fallbacks f on f.campaign_id = c.id
    where c.organization_id = ${organizationId} and c.id = ${campaignId} and c.sms_fallback is not null
    group by c.id`,
  );
  if (!row) return null;
  return {
    afterMinutes: Number(row.after_minutes),
    sent: Number(row.sent),
    pending: Number(row.pending),
    cancelled: Number(row.cancelled),
    skipped: Number(row.skipped),
  };
}
