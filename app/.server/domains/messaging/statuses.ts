import { sql } from "drizzle-orm";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";
import type { MessageKey } from "../../infrastructure/db/message-keys";

/**
 * Moving outbound messages by Meta's status webhooks. Every status is kept in `message_statuses`
 * (one row per message and status, even before Jumbe knows the wamid); this applies what is kept to
 * the messages, so a status that arrived before the send was settled is joined up afterwards.
 */

// sent < failed < delivered < read < played: a message delivered or read stays so when a late
// failure arrives (another device failed), and a late "delivered" never overwrites "read".
export const STATUS_RANK_SQL = (column: string) =>
  `case ${column} when 'played' then 5 when 'read' then 4 when 'delivered' then 3 when 'failed' then 2 when 'sent' then 1 else 0 end`;

export interface StatusChange extends MessageKey {
  organizationId: string;
  status: string;
  previous: string;
  /** The campaign or broadcast that sent it, whose figures it moves. */
  campaignId?: string | null;
  /** A template (an automation's outside-window send may have an SMS fallback armed, decision 159). */
  template?: boolean;
}

/**
 * Applies the kept statuses of these (tenant, wamid) pairs to their outbound messages: the highest
 * ranked status, each status's time, Meta's error of a failure and the pricing Meta reported.
 * Answers the messages whose status moved, with the status before.
 *
 * One pass (decision 024): each pair finds its message through its key in message_wamids, then the
 * message by id and created_at (one partition, decision 174), and its kept
 * statuses by message_statuses_org_wamid_status_idx (a lateral aggregate, so only that message's
 * rows are read and no pair is grouped twice), the message is locked, which gives the status before
 * this statement as a concurrent writer left it, and updated by its id and created_at. It was three passes: the kept
 * statuses grouped in a CTE, joined to messages to lock them, then joined again with a hash join.
 *
 * The message is found by a lateral probe (LIMIT keeps the planner from flattening it into a join):
 * as a join, statistics taken while a campaign's messages had no wamid yet made the planner read
 * the whole wamid index in a merge join on every call, longer with every message sent (decision
 * 027).
 *
 * Not by the ctid the lock returned: when another transaction updated the message first, this
 * statement's update finds the version its snapshot sees and follows it to the newest, whose ctid
 * is another, so a ctid condition drops the row (and a status with it); the id holds.
 */
export async function applyKeptStatuses(tx: Executor, pairs: { organizationId: string; wamid: string }[]): Promise<StatusChange[]> {
  return (await applyKeptStatusesFound(tx, pairs)).changes;
}

/**
 * applyKeptStatuses, also answering the pairs no message had (in this transaction's view): a status
 * that came before the dispatcher's settle committed, while the settle's own apply could not yet see
 * the status (late-statuses.ts tries those again).
 */
export async function applyKeptStatusesFound(
  tx: Executor,
  unordered: { organizationId: string; wamid: string }[],
): Promise<{ changes: StatusChange[]; unmatched: { organizationId: string; wamid: string }[] }> {
  if (!unordered.length) return { changes: [], unmatched: [] };
  // The messages are locked in the order of the pairs: in one order for every batch (tenant, then
  // wamid), two webhook batches with statuses of the same messages wait for each other and never
  // deadlock (each deadlock rolled a whole batch back and tried it again).
  const pairs = [...unordered].sort((a, b) => compare(a.organizationId, b.organizationId) || compare(a.wamid, b.wamid));
  const result = await queryRows<{
    id: string;
    createdAt: string;
    organization_id: string;
    status: string;
    previous: string;
    campaign_id: string | null;
    template: boolean;
    wamid: string;
  }>(
    tx,
    sql`
    with target as (
      select m.id, m.created_at, m.previous, p.wamid as pair_wamid, k.*
      from unnest(${sql.param(pairs.map((p) => p.organizationId))}::uuid[], ${sql.param(pairs.map((p) => p.wamid))}::text[])
           as p(organization_id, wamid)
      cross join lateral (
        select m.id, m.created_at, m.status as previous
        from message_wamids w join messages m on m.id = w.message_id and m.created_at = w.created_at
        where w.organization_id = p.organization_id and w.wamid = p.wamid
          and m.organization_id = p.organization_id and m.direction = 'outbound'
        limit 1
        for update of m
      ) m
      cross join lateral (
        select (array_agg(s.status order by ${sql.raw(STATUS_RANK_SQL("s.status"))} desc))[1] as best,
               min(s.occurred_at) filter (where s.status = 'sent') as kept_sent_at,
               min(s.occurred_at) filter (where s.status = 'delivered') as kept_delivered_at,
               min(s.occurred_at) filter (where s.status = 'read') as kept_read_at,
               min(s.occurred_at) filter (where s.status = 'failed') as kept_failed_at,
               (array_agg(s.errors) filter (where s.status = 'failed' and s.errors is not null))[1] -> 0 as error,
               (array_agg(s.pricing order by s.occurred_at desc) filter (where s.pricing is not null))[1] as pricing
        from message_statuses s
        where s.organization_id = p.organization_id and s.wamid = p.wamid
      ) k
      where k.best is not null
    )
    update messages m set
      status = case when ${sql.raw(STATUS_RANK_SQL("t.best"))} > ${sql.raw(STATUS_RANK_SQL("m.status"))} then t.best else m.status end,
      accepted_at = coalesce(m.accepted_at, t.kept_sent_at, t.kept_delivered_at, t.kept_read_at, t.kept_failed_at),
      sent_at = coalesce(m.sent_at, t.kept_sent_at),
      delivered_at = coalesce(m.delivered_at, t.kept_delivered_at),
      read_at = coalesce(m.read_at, t.kept_read_at),
      failed_at = coalesce(m.failed_at, t.kept_failed_at),
      error_code = case when t.error is not null and m.error_code is null then (t.error ->> 'code')::int else m.error_code end,
      error_title = case when t.error is not null and m.error_code is null then t.error ->> 'title' else m.error_title end,
      error_details = case when t.error is not null and m.error_code is null
                           then coalesce(t.error -> 'error_data' ->> 'details', t.error ->> 'message') else m.error_details end,
      pricing_category = coalesce(t.pricing ->> 'category', m.pricing_category),
      pricing_type = coalesce(t.pricing ->> 'type', m.pricing_type),
      billable = coalesce((t.pricing ->> 'billable')::boolean, m.billable),
      locked_until = null
    from target t
    where m.id = t.id and m.created_at = t.created_at
    returning m.id, m.created_at::text as "createdAt", m.organization_id, m.status, t.previous, m.campaign_id, m.message_type = 'template' as template, t.pair_wamid as wamid`,
  );
  const found = new Set(result.map((r) => `${r.organization_id}|${r.wamid}`));
  return {
    changes: result
      .filter((r) => r.status !== r.previous)
      .map((r) => ({
        id: r.id,
        createdAt: r.createdAt,
        organizationId: r.organization_id,
        status: r.status,
        previous: r.previous,
        campaignId: r.campaign_id,
        template: r.template,
      })),
    unmatched: pairs.filter((p) => !found.has(`${p.organizationId}|${p.wamid}`)),
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A status for a wamid Jumbe has not recorded, carrying Jumbe's message id back (Meta echoes
 * `biz_opaque_callback_data` on every status): the send was accepted but its answer was lost
 * (a worker died, a timeout). The message takes the wamid, so it is never sent a second time, and
 * loses the error of the try that lost the answer (it was accepted after all).
 */
export async function adoptLostAccepts(
  tx: Executor,
  found: { organizationId: string; wamid: string; messageId: string; createdAt?: string | null }[],
) {
  // By the key where the callback data carried it (one month's index, decision 183); by the id alone
  // for a send from before that (every month's).
  const keyed = found.filter((f) => f.createdAt);
  const byId = found.filter((f) => !f.createdAt);
  if (keyed.length) await adopt(tx, keyed, sql`m.id = f.id and m.created_at = f.created_at`);
  if (byId.length) await adopt(tx, byId, sql`m.id = f.id`);
}

async function adopt(
  tx: Executor,
  found: { organizationId: string; wamid: string; messageId: string; createdAt?: string | null }[],
  match: ReturnType<typeof sql>,
) {
  // One probe by id per status (a lateral join): statistics that lag the table (a campaign has just
  // queued thousands of messages without a wamid) once made this a scan of the table for each
  // status, two seconds a call (decision 026).
  // A message another transaction holds is skipped, not waited for. Usually that is the dispatcher
  // settling the very answer (Meta's "sent" often arrives before the batch is settled): waiting for
  // it was 40% of the database's time during a campaign. Anything else that holds an unsent
  // message is brief, and the message's next status (delivered, read, failed) adopts it then; a
  // send in doubt is not tried again for a minute (IN_DOUBT_WAIT_MS).
  await tx.execute(sql`
    with lost as (
      select m.id, m.created_at, f.wamid
      from unnest(${sql.param(found.map((f) => f.organizationId))}::uuid[], ${sql.param(found.map((f) => f.wamid))}::text[],
                  ${sql.param(found.map((f) => f.messageId))}::uuid[], ${sql.param(found.map((f) => f.createdAt ?? null))}::timestamptz[])
           as f(organization_id, wamid, id, created_at)
      cross join lateral (
        select m.id, m.created_at from messages m
        where ${match} and m.organization_id = f.organization_id and m.direction = 'outbound' and m.wamid is null
          and not exists (select 1 from message_wamids o where o.organization_id = f.organization_id and o.wamid = f.wamid)
        for update skip locked
      ) m
    )
    update messages m set wamid = lost.wamid, accepted_at = coalesce(m.accepted_at, now()), locked_until = null,
           error_code = null, error_title = null, error_details = null
    from lost where m.id = lost.id and m.created_at = lost.created_at`);
}
