import { sql } from "drizzle-orm";
import { countAffected, queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";
import { INBOX_CHANNEL } from "../../infrastructure/db/channels";
import { distinctMessageKeys, messageKeyTable, type MessageKey } from "../../infrastructure/db/message-keys";

/** The pg_notify channel an inbox change is announced on; the payload is the organisation's id. */
export { INBOX_CHANNEL };

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

/** One call's changes for the change log, written now or, in a transaction that defers them, at its end. */
export type InboxLogEntry =
  | { type: "messages"; kind: "message" | "status"; messages: readonly MessageKey[] }
  | {
      type: "found";
      kind: "message" | "status";
      found: readonly { organization_id: string; conversation_id: string; message_id: string }[];
    }
  | {
      type: "conversations";
      changes: readonly { organizationId: string; conversationId: string; kind?: "conversation" | "entry"; entryId?: string | null }[];
    };

// Transactions whose changes are gathered, to be written by their owner just before they end.
const deferred = new WeakMap<object, InboxLogEntry[]>();

async function record(tx: Executor, entry: InboxLogEntry) {
  const gathering = deferred.get(tx);
  if (gathering) gathering.push(entry);
  else await writeInboxLog(tx, [entry]);
}

/**
 * Runs `work` with its change-log entries on `tx` gathered instead of written, and answers them (for
 * writeInboxLog, once the transaction's other writes are done): the organisation's change-log lock
 * is then held from that write to the commit only. Entries of a `work` that throws are dropped with
 * it (its savepoint is rolled back).
 */
export async function gatheringInboxLog(tx: Executor, work: () => Promise<void>): Promise<InboxLogEntry[]> {
  const entries: InboxLogEntry[] = [];
  const outer = deferred.get(tx);
  deferred.set(tx, entries);
  try {
    await work();
    return entries;
  } finally {
    if (outer) deferred.set(tx, outer);
    else deferred.delete(tx);
  }
}

/**
 * Logs changes of messages in the inbox (a message in or out, a status tick), in the caller's
 * transaction: only messages that belong to a conversation (same organisation, number and contact),
 * so a campaign's thousands of recipients who never wrote add nothing. Announces each organisation
 * once (pg_notify is delivered at commit, and not at all on a rollback).
 */
export async function logMessageEvents(tx: Executor, kind: "message" | "status", messages: readonly MessageKey[]) {
  if (messages.length) await record(tx, { type: "messages", kind, messages });
}

/**
 * logMessageEvents for messages whose conversations the caller knows (the webhook's batch has just
 * written them), oldest first: the same log, without reading them again.
 */
export async function logFoundMessageEvents(
  tx: Executor,
  kind: "message" | "status",
  found: readonly { organization_id: string; conversation_id: string; message_id: string }[],
) {
  if (found.length) await record(tx, { type: "found", kind, found });
}

/** Logs that conversations changed (assignment, state, unread count, a note) and announces them. */
export async function logConversationEvents(
  tx: Executor,
  changes: readonly { organizationId: string; conversationId: string; kind?: "conversation" | "entry"; entryId?: string | null }[],
) {
  if (changes.length) await record(tx, { type: "conversations", changes });
}

/**
 * Writes change-log entries in their order: the messages' conversations read in one statement (each
 * entry's messages oldest first), every organisation's lock taken once, one insert, one announcement
 * an organisation.
 */
export async function writeInboxLog(tx: Executor, entries: readonly InboxLogEntry[]) {
  const asked = distinctMessageKeys(entries.flatMap((e) => (e.type === "messages" ? e.messages : [])));
  const conversationOf = new Map<string, { organization_id: string; conversation_id: string; seq: number }>();
  if (asked.length)
    for (const row of await queryRows<{ organization_id: string; conversation_id: string; message_id: string; seq: string | number }>(
      tx,
      sql`
        select m.organization_id, v.id as conversation_id, m.id as message_id, m.seq
        from ${messageKeyTable(asked)}
        join messages m on m.id = k.id and m.created_at = k.created_at
        join conversations v on v.organization_id = m.organization_id and v.phone_number_id = m.phone_number_id and v.contact_id = m.contact_id`,
    ))
      conversationOf.set(row.message_id, {
        organization_id: row.organization_id,
        conversation_id: row.conversation_id,
        seq: Number(row.seq),
      });
  const rows: { o: string; c: string; k: InboxEventKind; m: string | null; e: string | null }[] = [];
  for (const entry of entries) {
    if (entry.type === "messages") {
      const found = [...new Set(entry.messages.map((k) => k.id))]
        .flatMap((id) => {
          const at = conversationOf.get(id);
          return at ? [{ id, ...at }] : [];
        })
        .sort((a, b) => a.seq - b.seq);
      for (const f of found) rows.push({ o: f.organization_id, c: f.conversation_id, k: entry.kind, m: f.id, e: null });
    } else if (entry.type === "found") {
      for (const f of entry.found) rows.push({ o: f.organization_id, c: f.conversation_id, k: entry.kind, m: f.message_id, e: null });
    } else {
      for (const c of entry.changes)
        rows.push({ o: c.organizationId, c: c.conversationId, k: c.kind ?? "conversation", m: null, e: c.entryId ?? null });
    }
  }
  if (!rows.length) return;
  await lockLogs(
    tx,
    rows.map((r) => r.o),
  );
  const col = <K extends keyof (typeof rows)[number]>(key: K) => sql.param(rows.map((r) => r[key]));
  await tx.execute(sql`
    with logged as (
      insert into inbox_events (organization_id, conversation_id, kind, message_id, entry_id)
      select o, c, k, m, e from unnest(${col("o")}::uuid[], ${col("c")}::uuid[], ${col("k")}::text[], ${col("m")}::uuid[], ${col("e")}::uuid[])
                                with ordinality as t(o, c, k, m, e, n)
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
