import type { MessageContent, ThreadEntry, ThreadItem, ThreadMessage } from "~/lib/inbox";
import { cartsOfMessages, type OrderLine } from "../shop";
import type { OrderStatus } from "../../infrastructure/db/schema";
import { rawQuery } from "../../infrastructure/db/client";
import { isTimestamp, isUuid } from "../../infrastructure/db/keyset";
import { failureInWords } from "../campaigns";
import { memberColumns, memberOf } from "./members";
import { contentLine, messageContent } from "./message-content";
import { statusOf } from "./list";
import { readHandoverBody } from "../automations";
import { m } from "~/paraglide/messages";

/** Messages a page of the thread shows ("load older" brings the next). */
export const THREAD_PAGE_SIZE = 30;

type Row = Record<string, unknown>;

/** A thread position: a message's created_at as the database wrote it, and its arrival order. */
const encodeCursor = (at: string, seq: number) => Buffer.from(`${at}|${seq}`).toString("base64url");
function decodeCursor(cursor: string | null | undefined) {
  if (!cursor || cursor.length > 120) return undefined;
  const [at, seq, extra] = Buffer.from(cursor, "base64url").toString().split("|");
  if (extra !== undefined || !at || !seq || !/^\d{1,18}$/.test(seq) || !isTimestamp(at)) return undefined;
  return { at, seq: Number(seq) };
}

const MESSAGE_SELECT = `
  select m.id, m.contact_id, m.direction, m.status, m.body, m.message_type, m.payload, m.created_at, m.created_at::text as cursor_at, m.sent_at, m.seq,
         m.accepted_at, m.delivered_at, m.read_at, m.failed_at, m.error_code, m.error_title, m.error_details, m.source, m.wamid,
         m.context_wamid, m.media_file_id, t.components as template_components, f.mime_type, f.size, f.file_name,
         ${memberColumns("u", "sender")},
         m.retried_at is not null as retried, m.body_expired_at is not null as body_expired, m.channel, ar.kind as automation_kind, rr.name as automation_rule
  from messages m
  left join automation_runs ar on ar.id = m.automation_run_id
  left join automation_rules rr on rr.id = ar.rule_id
  left join message_templates t on t.id = m.template_id
  left join media_files f on f.id = m.media_file_id
  left join users u on u.id = m.sent_by`;

const ENTRY_SELECT = `
  select e.id, e.kind, e.body, e.created_at, ${memberColumns("a", "actor")}, ${memberColumns("s", "subject")}
  from conversation_entries e
  left join users a on a.id = e.actor_id
  left join users s on s.id = e.subject_id`;

export interface ThreadOwner {
  organizationId: string;
  conversationId: string;
  contactId: string;
  phoneNumberId: string;
}

/**
 * A page of a conversation's thread, oldest first: its latest messages (or those before `before`),
 * with the members' notes and actions of the same stretch of time, each message's reactions and the
 * message it answers. "Load older" is `older`.
 */
export async function threadOf(owner: ThreadOwner, before?: string | null) {
  const cursor = decodeCursor(before);
  const params: unknown[] = [owner.organizationId, owner.contactId, owner.phoneNumberId];
  const bound = cursor ? `and (m.created_at, m.seq) < ($4::timestamptz, $5::bigint)` : "";
  if (cursor) params.push(cursor.at, cursor.seq);
  const rows = await rawQuery(
    `${MESSAGE_SELECT}
     where m.organization_id = $1 and m.contact_id = $2 and m.phone_number_id = $3 and m.message_type <> 'reaction' ${bound}
     order by m.created_at desc, m.seq desc limit ${THREAD_PAGE_SIZE + 1}`,
    params,
  );
  const page = rows.slice(0, THREAD_PAGE_SIZE).reverse();
  const hasOlder = rows.length > THREAD_PAGE_SIZE;
  const from = hasOlder ? (page[0]?.cursor_at as string) : null;
  const to = cursor?.at ?? null;
  const entries = await rawQuery(
    `${ENTRY_SELECT}
     where e.conversation_id = $1 ${from ? "and e.created_at >= $2::timestamptz" : ""} ${to ? `and e.created_at < $${from ? 3 : 2}::timestamptz` : ""}
     order by e.created_at, e.id limit 200`,
    [owner.conversationId, ...(from ? [from] : []), ...(to ? [to] : [])],
  );
  const messages = await messagesOf(owner.organizationId, page);
  const items: ThreadItem[] = [...messages, ...entries.map(entryOf)].sort(
    (a, b) => a.at.localeCompare(b.at) || (a.type === b.type ? 0 : a.type === "message" ? -1 : 1),
  );
  const first = page[0];
  return { items, older: hasOlder && first ? encodeCursor(String(first.cursor_at), Number(first.seq)) : null };
}

/**
 * These messages of the organisation as their threads show them (for the live stream): a reaction
 * stands for the message it reacts to, which is what changed.
 */
export async function threadMessagesByIds(organizationId: string, ids: readonly string[]): Promise<ThreadMessage[]> {
  const wanted = ids.filter(isUuid);
  if (!wanted.length) return [];
  const rows = await rawQuery(
    `${MESSAGE_SELECT}
     where m.organization_id = $1 and m.id = any($2::uuid[])
        or m.id in (select w.message_id from messages r join message_wamids w on w.organization_id = r.organization_id and w.wamid = r.payload->'reaction'->>'message_id'
                    where r.organization_id = $1 and r.id = any($2::uuid[]) and r.message_type = 'reaction')
     order by m.created_at, m.seq`,
    [organizationId, wanted],
  );
  return messagesOf(
    organizationId,
    rows.filter((r) => r.message_type !== "reaction"),
  );
}

/** These entries of the organisation as their threads show them (for the live stream). */
export async function threadEntriesByIds(organizationId: string, ids: readonly string[]): Promise<ThreadEntry[]> {
  const wanted = ids.filter(isUuid);
  if (!wanted.length) return [];
  const rows = await rawQuery(`${ENTRY_SELECT} where e.organization_id = $1 and e.id = any($2::uuid[]) order by e.created_at`, [
    organizationId,
    wanted,
  ]);
  return rows.map(entryOf);
}

const iso = (value: unknown) => new Date(value as string).toISOString();

function entryOf(row: Row): ThreadEntry {
  const entry: ThreadEntry = {
    type: "entry",
    id: String(row.id),
    at: iso(row.created_at),
    kind: row.kind as ThreadEntry["kind"],
    actor: memberOf(row, "actor"),
    subject: memberOf(row, "subject"),
    body: String(row.body ?? ""),
  };
  if (entry.kind !== "handover") return entry;
  const { reason, detail } = readHandoverBody(entry.body);
  return { ...entry, reason, body: detail ?? "" };
}

const reactionTarget = (payload: unknown) => {
  const reaction = (payload as { reaction?: { message_id?: unknown } } | null)?.reaction;
  return typeof reaction?.message_id === "string" ? reaction.message_id : null;
};
const contextOf = (row: Row) => {
  if (row.direction === "outbound") return (row.context_wamid as string | null) ?? null;
  const context = (row.payload as { context?: { id?: unknown } } | null)?.context;
  return typeof context?.id === "string" ? context.id : null;
};

/** The rows as thread messages, with their reactions and the messages they answer (two more reads at most). */
async function messagesOf(organizationId: string, rows: Row[]): Promise<ThreadMessage[]> {
  if (!rows.length) return [];
  const wamids = rows.map((r) => r.wamid).filter((w): w is string => typeof w === "string");
  const contacts = [...new Set(rows.map((r) => r.contact_id).filter((c): c is string => typeof c === "string"))];
  // A thread is one contact's: `contact_id = $2` then, since with `= any($2)` a generic plan counts
  // ten contacts and PostgreSQL planned the statement for its values on every run (0.9 ms, every
  // month of `messages`), where one contact's generic plan is chosen and planned once a connection.
  const reactions = wamids.length
    ? await rawQuery<{ direction: string; payload: unknown }>(
        `select direction, payload from messages
         where organization_id = $1 and ${contacts.length === 1 ? "contact_id = $2::uuid" : "contact_id = any($2::uuid[])"}
           and message_type = 'reaction' and payload->'reaction'->>'message_id' = any($3::text[])
         order by created_at, seq`,
        [organizationId, contacts.length === 1 ? contacts[0] : contacts, wamids],
      )
    : [];
  const reactionsOf = new Map<string, Map<"customer" | "business", string>>();
  for (const r of reactions) {
    const target = reactionTarget(r.payload);
    if (!target) continue;
    const emoji = String((r.payload as { reaction?: { emoji?: unknown } }).reaction?.emoji ?? "");
    const side = r.direction === "inbound" ? "customer" : "business";
    const map = reactionsOf.get(target) ?? new Map<"customer" | "business", string>();
    if (emoji) map.set(side, emoji);
    else map.delete(side);
    reactionsOf.set(target, map);
  }
  const byWamid = new Map(rows.filter((r) => r.wamid).map((r) => [String(r.wamid), r]));
  const missing = [...new Set(rows.map(contextOf).filter((w): w is string => !!w && !byWamid.has(w)))];
  if (missing.length)
    for (const r of await rawQuery(
      `select m.id, m.direction, m.body, m.message_type, m.payload, m.wamid, m.body_expired_at is not null as body_expired
       from message_wamids w join messages m on m.id = w.message_id and m.created_at = w.created_at and m.organization_id = w.organization_id
       where w.organization_id = $1 and w.wamid = any($2::text[])`,
      [organizationId, missing],
    ))
      byWamid.set(String(r.wamid), r);
  const carts = await cartsOfMessages(
    organizationId,
    rows.filter((r) => r.message_type === "order").map((r) => String(r.id)),
  );
  return rows.map((row) => {
    const context = contextOf(row);
    const quoted = context ? byWamid.get(context) : undefined;
    const status = statusOf(row);
    return {
      type: "message",
      id: String(row.id),
      direction: row.direction === "inbound" ? "inbound" : "outbound",
      at: iso(row.direction === "inbound" && row.sent_at ? row.sent_at : row.created_at),
      status,
      content: withCart(contentOfRow(row), carts.get(String(row.id))),
      replyTo: context
        ? quoted
          ? {
              id: String(quoted.id),
              direction: quoted.direction === "inbound" ? "inbound" : "outbound",
              text: contentLine(contentOfRow(quoted)).slice(0, 200),
            }
          : { id: null, direction: null, text: m.inbox_thread_quote_missing() }
        : null,
      reactions: [...(reactionsOf.get(String(row.wamid ?? "")) ?? new Map()).entries()].map(([from, emoji]) => ({ emoji, from })),
      failure:
        status === "failed"
          ? failureInWords(row.error_code as number | null, row.error_title as string | null, {
              template: row.message_type === "template",
            })
          : null,
      retryable: status === "failed" && row.direction === "outbound" && !row.retried && row.channel !== "sms",
      ...(row.channel === "sms" ? { channel: "sms" as const } : {}),
      sentBy: memberOf(row, "sender"),
      source: row.direction === "outbound" && row.source !== "inbox" ? ((row.source as string | null) ?? null) : null,
      // Which automation sent it: a rule (by its name; null once deleted), the welcome or the away message.
      automation: row.automation_kind
        ? { kind: row.automation_kind as "rule" | "welcome" | "away", rule: (row.automation_rule as string | null) ?? null }
        : null,
    };
  });
}

/** An order message's card with the order Jumbe made of it: its lines, total and page. */
function withCart(
  content: MessageContent,
  cart: { orderId: string; totalCents: number; status: OrderStatus; items: OrderLine[] } | undefined,
): MessageContent {
  if (content.kind !== "order" || !cart) return content;
  return {
    ...content,
    cart: {
      orderId: cart.orderId,
      totalCents: cart.totalCents,
      status: cart.status,
      lines: cart.items.map((i) => ({ name: i.name, quantity: i.quantity, unitPriceCents: i.unitPriceCents })),
    },
  };
}

function contentOfRow(row: Row) {
  return messageContent({
    id: String(row.id),
    direction: row.direction === "inbound" ? "inbound" : "outbound",
    messageType: String(row.message_type ?? "text"),
    body: String(row.body ?? ""),
    payload: row.payload,
    template: row.template_components ? { components: row.template_components as Record<string, unknown>[] } : null,
    mediaFile: row.mime_type
      ? { mimeType: String(row.mime_type), size: Number(row.size ?? 0), fileName: (row.file_name as string | null) ?? null }
      : null,
    errorTitle: (row.error_title as string | null) ?? null,
    errorDetails: (row.error_details as string | null) ?? null,
    bodyExpired: row.body_expired === true,
  });
}
