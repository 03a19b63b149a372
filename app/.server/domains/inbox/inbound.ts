import { sql } from "drizzle-orm";
import { logConversationEvents } from "../messaging";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

/** Kinds of inbound message that are not the customer writing something to read: no unread count, no reopening. */
const NOT_UNREAD = new Set(["reaction", "system", "unsupported", "request_welcome"]);

interface Window {
  organizationId: string;
  phoneNumberId: string;
  contactId: string;
  /** The customer's latest message time in this batch. */
  at: string;
}

/**
 * The webhook's customer messages in their conversations (one per customer per business number):
 * the service window opens or extends; each new message to read (not a duplicate delivery, not a
 * reaction) raises the unread count and moves it to the top of the list (by arrival: Meta's times are
 * whole seconds); a resolved conversation reopens, with a line in its thread.
 */
export async function upsertConversations(
  tx: Executor,
  windows: readonly Window[],
  inserted: readonly { message_type: string; organization_id: string; phone_number_id: string; contact_id: string | null }[],
) {
  if (!windows.length) return new Map<string, string>();
  const fresh = new Map<string, number>();
  for (const m of inserted)
    if (m.contact_id && !NOT_UNREAD.has(m.message_type)) {
      const key = `${m.organization_id}|${m.phone_number_id}|${m.contact_id}`;
      fresh.set(key, (fresh.get(key) ?? 0) + 1);
    }
  const unread = windows.map((w) => fresh.get(`${w.organizationId}|${w.phoneNumberId}|${w.contactId}`) ?? 0);
  const col = <K extends keyof Window>(key: K) => sql.param(windows.map((w) => w[key]));
  const unnested = sql`unnest(${col("organizationId")}::uuid[], ${col("phoneNumberId")}::text[], ${col("contactId")}::uuid[],
                               ${col("at")}::timestamptz[], ${sql.param(unread)}::int[]) as t(o, p, c, a, n)`;
  // Resolved ones that a new message reopens, locked so the thread's line is written once.
  const reopened = (
    await queryRows<{ id: string }>(
      tx,
      sql`
      select v.id from conversations v join ${unnested} on v.organization_id = t.o and v.phone_number_id = t.p and v.contact_id = t.c
      where t.n > 0 and v.status = 'resolved' for update of v`,
    )
  ).map((r) => r.id);
  const rows = await queryRows<{
    organization_id: string;
    phone_number_id: string;
    contact_id: string;
    conversation_id: string;
    entry_id: string | null;
  }>(
    tx,
    sql`
      with upserted as (
        insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, last_message_at, unread_count)
        select o, p, c, a, now(), n from ${unnested}
        on conflict (organization_id, phone_number_id, contact_id) do update
          set last_inbound_at = greatest(conversations.last_inbound_at, excluded.last_inbound_at),
              last_message_at = greatest(conversations.last_message_at, excluded.last_message_at),
              unread_count = conversations.unread_count + excluded.unread_count,
              status = case when excluded.unread_count > 0 then 'open' else conversations.status end,
              resolved_at = case when excluded.unread_count > 0 then null else conversations.resolved_at end
        returning id, organization_id, phone_number_id, contact_id
      ),
      entries as (
        insert into conversation_entries (organization_id, conversation_id, kind)
        select organization_id, id, 'reopened' from upserted where id = any(${sql.param(reopened)}::uuid[])
        returning id as entry_id, conversation_id
      )
      select u.organization_id, u.phone_number_id, u.contact_id, u.id as conversation_id, e.entry_id
      from upserted u left join entries e on e.conversation_id = u.id`,
  );
  await logConversationEvents(
    tx,
    rows.flatMap((r) =>
      r.entry_id
        ? [{ organizationId: r.organization_id, conversationId: r.conversation_id, kind: "entry" as const, entryId: r.entry_id }]
        : [],
    ),
  );
  // Each window's conversation, for the caller's change log (no second read).
  return new Map(rows.map((r) => [`${r.organization_id}|${r.phone_number_id}|${r.contact_id}`, r.conversation_id]));
}
