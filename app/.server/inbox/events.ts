import { sql } from "drizzle-orm";
import type { Executor } from "../jobs/queue";

/** The pg_notify channel an inbox change is announced on; the payload is the organisation's id. */
export const INBOX_CHANNEL = "jumbe_inbox";
/** How long the change log is kept: a browser away longer reloads instead of replaying. */
export const INBOX_EVENT_RETENTION_HOURS = 48;

export type InboxEventKind = "message" | "status" | "conversation" | "entry";

type Row = Record<string, unknown>;
const rowsOf = <T = Row>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * Logs changes of messages in the inbox (a message in or out, a status tick), in the caller's
 * transaction: only messages that belong to a conversation (same organisation, number and contact),
 * so a campaign's thousands of recipients who never wrote add nothing. Announces each organisation
 * once (pg_notify is delivered at commit, and not at all on a rollback).
 */
export async function logMessageEvents(tx: Executor, kind: "message" | "status", messageIds: readonly string[]) {
  if (!messageIds.length) return;
  await tx.execute(sql`
    with logged as (
      insert into inbox_events (organization_id, conversation_id, kind, message_id)
      select m.organization_id, v.id, ${kind}, m.id
      from messages m
      join conversations v on v.organization_id = m.organization_id and v.phone_number_id = m.phone_number_id and v.contact_id = m.contact_id
      where m.id = any(${sql.param([...new Set(messageIds)])}::uuid[])
      order by m.seq
      returning organization_id)
    select pg_notify(${INBOX_CHANNEL}, o::text) from (select distinct organization_id as o from logged) t`);
}

/** Logs that conversations changed (assignment, state, unread count) and announces them. */
export async function logConversationEvents(
  tx: Executor,
  changes: readonly { organizationId: string; conversationId: string; kind?: "conversation" | "entry"; entryId?: string | null }[],
) {
  if (!changes.length) return;
  await tx.execute(sql`
    with logged as (
      insert into inbox_events (organization_id, conversation_id, kind, entry_id)
      select o, c, k, e from unnest(${sql.param(changes.map((c) => c.organizationId))}::uuid[],
                                    ${sql.param(changes.map((c) => c.conversationId))}::uuid[],
                                    ${sql.param(changes.map((c) => c.kind ?? "conversation"))}::text[],
                                    ${sql.param(changes.map((c) => c.entryId ?? null))}::uuid[]) as t(o, c, k, e)
      returning organization_id)
    select pg_notify(${INBOX_CHANNEL}, o::text) from (select distinct organization_id as o from logged) t`);
}

export interface LoggedEvent {
  id: number;
  organizationId: string;
  conversationId: string;
  kind: InboxEventKind;
  messageId: string | null;
  entryId: string | null;
}

/**
 * The organisation's changes after `afterId`, oldest first, plus any of the last few seconds (an
 * event's id is taken before its transaction commits, so a lower id can appear after a higher one:
 * readers skip those they have seen).
 */
export async function eventsSince(executor: Executor, organizationId: string, afterId: number, limit = 500): Promise<LoggedEvent[]> {
  const rows = rowsOf<{
    id: string | number;
    conversation_id: string;
    kind: InboxEventKind;
    message_id: string | null;
    entry_id: string | null;
  }>(
    await executor.execute(sql`
      select id, conversation_id, kind, message_id, entry_id from inbox_events
      where organization_id = ${organizationId} and (id > ${afterId} or created_at > now() - interval '10 seconds')
      order by id limit ${limit}`),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    organizationId,
    conversationId: r.conversation_id,
    kind: r.kind,
    messageId: r.message_id,
    entryId: r.entry_id,
  }));
}

/** The newest event id of the organisation (0: none), for a page to hand its stream. */
export async function latestEventId(executor: Executor, organizationId: string): Promise<number> {
  const [row] = rowsOf<{ id: string | number | null }>(
    await executor.execute(sql`select max(id) as id from inbox_events where organization_id = ${organizationId}`),
  );
  return Number(row?.id ?? 0);
}

/** Whether the log still holds what came after `afterId` (else the browser reloads: it was away too long). */
export async function eventsKeptSince(executor: Executor, organizationId: string, afterId: number): Promise<boolean> {
  if (afterId <= 0) return true;
  const [row] = rowsOf<{ kept: boolean }>(
    await executor.execute(
      sql`select exists (select 1 from inbox_events where organization_id = ${organizationId} and id <= ${afterId}) or not exists (
            select 1 from inbox_events where organization_id = ${organizationId} and id > ${afterId}) as kept`,
    ),
  );
  return !!row?.kept;
}

/** Housekeeping: drops the log's rows older than the retention. */
export async function pruneInboxEvents(executor: Executor) {
  const result = await executor.execute(
    sql`delete from inbox_events where created_at < now() - make_interval(hours => ${INBOX_EVENT_RETENTION_HOURS})`,
  );
  return (result as unknown as { rowCount?: number | null }).rowCount ?? 0;
}
