import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { messageKeyTable, type MessageKey } from "../../infrastructure/db/message-keys";
import { smsFallbacks } from "../../infrastructure/db/schema";
import type { StatusChange } from "../messaging";
import { DELIVERED, SWEEP_HORIZON_HOURS, UNDELIVERABLE_CODES } from "./fallback-run";

export { quietHoursEnd, runFallback, runFallbacks, UNDELIVERABLE_CODES } from "./fallback-run";

/** The queue of pending fallbacks, one job each, decided by the batch (fallback-run.ts). */
export const SMS_FALLBACK_QUEUE = "sms.fallback";
/** The recurring sweep: messages not delivered in their campaign's time, and pending fallbacks come due. */
export const SMS_FALLBACK_SWEEP_QUEUE = "sms.fallback-sweep";
export const SMS_FALLBACK_SWEEP_EVERY_SECONDS = 30;

const SWEEP_BATCH = 1000;

/**
 * Statuses that moved (in the writer's transaction, under the messages' locks): a campaign message
 * that failed with an undeliverable error gets its fallback (once: the unique source), and one
 * delivered or read cancels a fallback still pending, or notes that the SMS had already gone.
 */
export async function fallbackOnStatusChanges(tx: Executor, changes: StatusChange[]) {
  const failed = changes.filter((c) => c.status === "failed" && c.campaignId);
  // An automation's template may have one armed (decision 159).
  const armed = changes.filter((c) => c.status === "failed" && !c.campaignId && c.template);
  // Only a campaign's messages and templates have fallbacks: an inbox reply's "delivered" costs no statement here.
  const delivered = changes.filter((c) => DELIVERED.includes(c.status) && (c.campaignId || c.template)).map((c) => c.id);
  if (failed.length) await queueFailedFallbacks(tx, failed);
  if (armed.length) await dueArmedFallbacks(tx, armed);
  if (delivered.length) await cancelDelivered(tx, delivered);
}

/** An automation's armed fallback whose message Meta failed as undeliverable is due now (and gets its job). */
async function dueArmedFallbacks(tx: Executor, failed: readonly MessageKey[]) {
  const due = await queryRows<{ id: string }>(
    tx,
    sql`
    update sms_fallbacks f set trigger = 'failed', due_at = now()
    from ${messageKeyTable(failed)} join messages m on m.id = k.id and m.created_at = k.created_at
    where f.source_message_id = k.id and f.state = 'pending' and f.automation is not null
      and m.error_code = any(${sql.param([...UNDELIVERABLE_CODES])}::int[])
    returning f.id`,
  );
  await enqueueFallbackJobs(
    tx,
    due.map((r) => r.id),
  );
}

async function queueFailedFallbacks(tx: Executor, failed: readonly MessageKey[]) {
  const made = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into sms_fallbacks (organization_id, source_message_id, campaign_id, trigger)
    select m.organization_id, m.id, m.campaign_id, 'failed'
    from ${messageKeyTable(failed)} join messages m on m.id = k.id and m.created_at = k.created_at
    join campaigns c on c.id = m.campaign_id
    where c.sms_fallback is not null and m.channel = 'whatsapp'
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
