import { sql } from "drizzle-orm";
import { countAffected, queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

/** The pg_notify channel an inbox change is announced on; the payload is the organisation's id. */
export const INBOX_CHANNEL = "jumbe_inbox";
/** How long the change log is kept: a browser away longer reloads instead of replaying. */
export const INBOX_EVENT_RETENTION_HOURS = 48;

export type InboxEventKind = "message" | "status" | "conversation" | "entry";

/**
 * Takes each organisation's change-log lock until the transaction ends, in a fixed order: the
 * organisation's changes then get their ids in the order they commit, so a reader that has seen id
 * N has seen everything below it, and catching up from a last event id loses nothing (decision 034).
 */
async function lockLogs(tx: Executor, organizationIds: readonly string[]) {
  const ids = [...new Set(organizationIds)].sort();
  if (!ids.length) return;
  await tx.execute(sql`
    select pg_advisory_xact_lock(${INBOX_LOCK_SPACE}, hashtext(o)) from unnest(${sql.param(ids)}::text[]) as t(o) order by o`);
}

/** The advisory lock space of the change log (the first key of the two-key form). */
const INBOX_LOCK_SPACE = 16016;

/**
 * Logs changes of messages in the inbox (a message in or out, a status tick), in the caller's
 * transaction: only messages that belong to a conversation (same organisation, number and contact),
 * so a campaign's thousands of recipients who never wrote add nothing. Announces each organisation
 * once (pg_notify is delivered at commit, and not at all on a rollback).
 */
export async function logMessageEvents(tx: Executor, kind: "message" | "status", messageIds: readonly string[]) {
  if (!messageIds.length) return;
  const found = await queryRows<{ organization_id: string; conversation_id: string; message_id: string }>(
    tx,
    sql`
      select m.organization_id, v.id as conversation_id, m.id as message_id
      from messages m
      join conversations v on v.organization_id = m.organization_id and v.phone_number_id = m.phone_number_id and v.contact_id = m.contact_id
      where m.id = any(${sql.param([...new Set(messageIds)])}::uuid[])
      order by m.seq`,
  );
  await logFoundMessageEvents(tx, kind, found);
}

/**
 * logMessageEvents for messages whose conversations the caller knows (the webhook's batch has just
 * written them), oldest first: the same lock and log, without reading them again.
 */
export async function logFoundMessageEvents(
  tx: Executor,
  kind: "message" | "status",
  found: readonly { organization_id: string; conversation_id: string; message_id: string }[],
) {
  if (!found.length) return;
  await lockLogs(
    tx,
    found.map((f) => f.organization_id),
  );
  await tx.execute(sql`
    with logged as (
      insert into inbox_events (organization_id, conversation_id, kind, message_id)
      select o, c, ${kind}, m from unnest(${sql.param(found.map((f) => f.organization_id))}::uuid[],
                                          ${sql.param(found.map((f) => f.conversation_id))}::uuid[],
                                          ${sql.param(found.map((f) => f.message_id))}::uuid[]) with ordinality as t(o, c, m, n)
      order by n
      returning organization_id)
    select pg_notify(${INBOX_CHANNEL}, o::text) from (select distinct organization_id as o from logged) t`);
}

/** Logs that conversations changed (assignment, state, unread count, a note) and announces them. */
export async function logConversationEvents(
  tx: Executor,
  changes: readonly { organizationId: string; conversationId: string; kind?: "conversation" | "entry"; entryId?: string | null }[],
) {
  if (!changes.length) return;
  await lockLogs(
    tx,
    changes.map((c) => c.organizationId),
  );
  await tx.execute(sql`
    with logged as (
      insert into inbox_events (organization_id, conversation_id, kind, entry_id)
      select o, c, k, e from unnest(${sql.param(changes.map((c) => c.organizationId))}::uuid[],
                                    ${sql.param(changes.map((c) => c.conversationId))}::uuid[],
                                    ${sql.param(changes.map((c) => c.kind ?? "conversation"))}::text[],
                                    ${sql.param(changes.map((c) => c.entryId ?? null))}::uuid[]) with ordinality as t(o, c, k, e, n)
      order by n
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

/** The organisation's changes after `afterId`, oldest first (ids follow commit order: lockLogs). */
export async function eventsSince(executor: Executor, organizationId: string, afterId: number, limit = 500): Promise<LoggedEvent[]> {
  const rows = await queryRows<{
    id: string | number;
    conversation_id: string;
    kind: InboxEventKind;
    message_id: string | null;
    entry_id: string | null;
  }>(
    executor,
    sql`
      select id, conversation_id, kind, message_id, entry_id from inbox_events
      where organization_id = ${organizationId} and id > ${afterId}
      order by id limit ${limit}`,
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
  const [row] = await queryRows<{ id: string | number | null }>(
    executor,
    sql`select max(id) as id from inbox_events where organization_id = ${organizationId}`,
  );
  return Number(row?.id ?? 0);
}

/** Whether the log still holds what came after `afterId` (else the browser reloads: it was away too long). */
export async function eventsKeptSince(executor: Executor, organizationId: string, afterId: number): Promise<boolean> {
  if (afterId <= 0) return true;
  const [row] = await queryRows<{ kept: boolean }>(
    executor,
    sql`select exists (select 1 from inbox_events where organization_id = ${organizationId} and id <= ${afterId}) or not exists (
            select 1 from inbox_events where organization_id = ${organizationId} and id > ${afterId}) as kept`,
  );
  return !!row?.kept;
}

/** Housekeeping: drops the log's rows older than the retention. */
export async function pruneInboxEvents(executor: Executor) {
  return countAffected(
    executor,
    sql`delete from inbox_events where created_at < now() - make_interval(hours => ${INBOX_EVENT_RETENTION_HOURS})`,
  );
}
