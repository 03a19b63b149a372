import { sql } from "drizzle-orm";
import type { Executor } from "../jobs/queue";

/**
 * Moving outbound messages by Meta's status webhooks. Every status is kept in `message_statuses`
 * (one row per message and status, even before Jumbe knows the wamid); this applies what is kept to
 * the messages, so a status that arrived before the send was settled is joined up afterwards.
 */

// sent < failed < delivered < read < played: a message delivered or read stays so when a late
// failure arrives (another device failed), and a late "delivered" never overwrites "read".
export const STATUS_RANK_SQL = (column: string) =>
  `case ${column} when 'played' then 5 when 'read' then 4 when 'delivered' then 3 when 'failed' then 2 when 'sent' then 1 else 0 end`;

export interface StatusChange {
  id: string;
  organizationId: string;
  status: string;
  previous: string;
}

/**
 * Applies the kept statuses of these (tenant, wamid) pairs to their outbound messages: the highest
 * ranked status, each status's time, Meta's error of a failure and the pricing Meta reported.
 * Answers the messages whose status moved, with the status before.
 */
export async function applyKeptStatuses(tx: Executor, pairs: { organizationId: string; wamid: string }[]): Promise<StatusChange[]> {
  if (!pairs.length) return [];
  const result = (await tx.execute(sql`
    with kept as (
      select organization_id, wamid,
             (array_agg(status order by ${sql.raw(STATUS_RANK_SQL("status"))} desc))[1] as best,
             min(occurred_at) filter (where status = 'sent') as sent_at,
             min(occurred_at) filter (where status = 'delivered') as delivered_at,
             min(occurred_at) filter (where status = 'read') as read_at,
             min(occurred_at) filter (where status = 'failed') as failed_at,
             (array_agg(errors) filter (where status = 'failed' and errors is not null))[1] -> 0 as error,
             (array_agg(pricing order by occurred_at desc) filter (where pricing is not null))[1] as pricing
      from message_statuses
      where (organization_id, wamid) in (
        select * from unnest(${sql.param(pairs.map((p) => p.organizationId))}::uuid[], ${sql.param(pairs.map((p) => p.wamid))}::text[]))
      group by organization_id, wamid
    ),
    target as (
      select m.id, m.status as previous from messages m join kept k on k.organization_id = m.organization_id and k.wamid = m.wamid
      where m.direction = 'outbound' for update of m
    )
    update messages m set
      status = case when ${sql.raw(STATUS_RANK_SQL("k.best"))} > ${sql.raw(STATUS_RANK_SQL("m.status"))} then k.best else m.status end,
      accepted_at = coalesce(m.accepted_at, k.sent_at, k.delivered_at, k.read_at, k.failed_at),
      sent_at = coalesce(m.sent_at, k.sent_at),
      delivered_at = coalesce(m.delivered_at, k.delivered_at),
      read_at = coalesce(m.read_at, k.read_at),
      failed_at = coalesce(m.failed_at, k.failed_at),
      error_code = case when k.error is not null and m.error_code is null then (k.error ->> 'code')::int else m.error_code end,
      error_title = case when k.error is not null and m.error_code is null then k.error ->> 'title' else m.error_title end,
      error_details = case when k.error is not null and m.error_code is null
                           then coalesce(k.error -> 'error_data' ->> 'details', k.error ->> 'message') else m.error_details end,
      pricing_category = coalesce(k.pricing ->> 'category', m.pricing_category),
      pricing_type = coalesce(k.pricing ->> 'type', m.pricing_type),
      billable = coalesce((k.pricing ->> 'billable')::boolean, m.billable),
      locked_until = null
    from kept k, target t
    where t.id = m.id and k.organization_id = m.organization_id and k.wamid = m.wamid
    returning m.id, m.organization_id, m.status, t.previous`)) as unknown as {
    rows: { id: string; organization_id: string; status: string; previous: string }[];
  };
  return result.rows
    .filter((r) => r.status !== r.previous)
    .map((r) => ({ id: r.id, organizationId: r.organization_id, status: r.status, previous: r.previous }));
}

/**
 * A status for a wamid Jumbe has not recorded, carrying Jumbe's message id back (Meta echoes
 * `biz_opaque_callback_data` on every status): the send was accepted but its answer was lost
 * (a worker died, a timeout). The message takes the wamid, so it is never sent a second time, and
 * loses the error of the try that lost the answer (it was accepted after all).
 */
export async function adoptLostAccepts(tx: Executor, found: { organizationId: string; wamid: string; messageId: string }[]) {
  if (!found.length) return;
  await tx.execute(sql`
    update messages m set wamid = f.wamid, accepted_at = coalesce(m.accepted_at, now()), locked_until = null,
           error_code = null, error_title = null, error_details = null
    from unnest(${sql.param(found.map((f) => f.organizationId))}::uuid[], ${sql.param(found.map((f) => f.wamid))}::text[],
                ${sql.param(found.map((f) => f.messageId))}::uuid[]) as f(organization_id, wamid, id)
    where m.id = f.id and m.organization_id = f.organization_id and m.direction = 'outbound' and m.wamid is null
      and not exists (select 1 from messages o where o.organization_id = f.organization_id and o.wamid = f.wamid)`);
}
