import { data } from "react-router";
import type { ConversationRow, InboxFilter, MessageStatus } from "~/lib/inbox";
import { rawQuery } from "../../infrastructure/db/client";
import { PLANNED_FOR_ITS_VALUES } from "../../infrastructure/db/pg-statements";
import { decodeKeysetCursor, encodeKeysetCursor } from "../../infrastructure/db/keyset";
import { memberColumns, memberOf } from "./members";
import { contentLine, messageContent } from "./message-content";
import { serviceWindow } from "./window";
import { m } from "~/paraglide/messages";

/** Conversations a page of the list shows: two screens of a phone (issue 42: 25 were 20 KB of each inbox page's HTML; 15 keep /chat within 40 KB). */
export const LIST_PAGE_SIZE = 15;
/** Message text is searched from this many characters (a trigram index needs three); names and numbers always. */
export const MESSAGE_SEARCH_MIN = 3;
export const SEARCH_MAX = 100;
/** A search reads the organisation's newest messages this far back, newest first… */
export const RECENT_MESSAGES = 20_000;
/** …and this many more matches from the trigram index, in no order (a rare word said long ago). */
export const MESSAGE_MATCHES = 2000;

export interface ListQuery {
  /** Name, number or message text. */
  q?: string;
  filter?: InboxFilter;
  /** One business number (Meta's phone number id). */
  number?: string;
  /** The last row's position of the page before (keyset). */
  cursor?: string | null;
  /** The member looking: "mine" is theirs. */
  viewerId: string;
  now?: Date;
}

type Row = Record<string, unknown>;

/** The LIKE pattern matching `text` anywhere, its wildcards taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of the organisation's conversations, newest activity first: ids by the list's index
 * (filters and the keyset position in its order), then each row's customer, assignee, business
 * number and last message by key, in the same statement.
 */
export async function listConversations(organizationId: string, query: ListQuery) {
  const params: unknown[] = [organizationId];
  const where = ["v.organization_id = $1"];
  const add = (value: unknown) => `$${params.push(value)}`;
  switch (query.filter ?? "all") {
    case "open":
      where.push("v.status = 'open'");
      break;
    case "resolved":
      where.push("v.status = 'resolved'");
      break;
    case "mine":
      where.push(`v.assigned_to = ${add(query.viewerId)}::uuid`);
      break;
    case "unassigned":
      where.push("v.assigned_to is null and v.status = 'open'");
      break;
  }
  if (query.number) where.push(`v.phone_number_id = ${add(query.number)}`);
  const q = (query.q ?? "").trim().slice(0, SEARCH_MAX);
  if (q) {
    const pattern = add(containing(q));
    const digits = q.replace(/[\s()+-]/g, "");
    const byPeople = `select c.id from contacts c where c.organization_id = $1 and c.search_text like ${pattern}${
      /^\d{3,}$/.test(digits) ? ` or (c.organization_id = $1 and c.search_text like ${add(containing(digits))})` : ""
    }`;
    // What was written, read two bounded ways whatever the word: the organisation's newest messages
    // (by their index, newest first) for the recent conversations a common word is in, and up to
    // MESSAGE_MATCHES matches from the trigram index (no order, so it stops early) for a rare word
    // said long ago. Reading every match of a common word took seconds at millions of messages.
    // Only a parameter the statement uses: PostgreSQL cannot type one it never reads.
    const byText =
      q.length >= MESSAGE_SEARCH_MIN
        ? ` or (v.contact_id, v.phone_number_id) in (
              select r.contact_id, r.phone_number_id from (
                select m.contact_id, m.phone_number_id, m.body, m.direction, m.source from messages m
                where m.organization_id = $1 order by m.created_at desc limit ${RECENT_MESSAGES}) r
              where r.contact_id is not null and (r.direction = 'inbound' or r.source = 'inbox') and strpos(lower(r.body), ${add(q.toLowerCase())}) > 0
              union
              (select m.contact_id, m.phone_number_id from messages m
               where m.organization_id = $1 and m.contact_id is not null and (m.direction = 'inbound' or m.source = 'inbox')
                 and lower(m.body) like ${pattern}
               limit ${MESSAGE_MATCHES}))`
        : "";
    where.push(`(v.contact_id in (${byPeople})${byText})`);
  }
  const after = decodeKeysetCursor(query.cursor);
  if (after) where.push(`(v.last_message_at, v.id) < (${add(after.at)}::timestamptz, ${add(after.id)}::uuid)`);
  const limit = add(LIST_PAGE_SIZE + 1);
  // A search is planned for its values each run (its best plan depends on the organisation's size).
  const rows = await rawQuery(
    `${q ? PLANNED_FOR_ITS_VALUES : ""}${ROW_SELECT(`select v.* from conversations v where ${where.join(" and ")} order by v.last_message_at desc nulls last, v.id desc nulls last limit ${limit}`)}
     order by v.last_message_at desc, v.id desc`,
    params,
  );
  const page = rows.slice(0, LIST_PAGE_SIZE);
  const last = page.at(-1);
  return {
    rows: page.map((row) => conversationRow(row, query.now)),
    next: rows.length > LIST_PAGE_SIZE && last ? encodeKeysetCursor(String(last.cursor_at), String(last.id)) : null,
  };
}

/** These conversations of the organisation as the list shows them (unknown or foreign ids are left out). */
export async function conversationRows(organizationId: string, ids: readonly string[], now?: Date): Promise<ConversationRow[]> {
  if (!ids.length) return [];
  const rows = await rawQuery(
    `${ROW_SELECT(`select v.* from conversations v where v.organization_id = $1 and v.id = any($2::uuid[])`)}
     order by v.last_message_at desc, v.id desc`,
    [organizationId, [...new Set(ids)]],
  );
  return rows.map((row) => conversationRow(row, now));
}

/** One conversation of the organisation as the list shows it, or null (unknown, another's, malformed id). */
export async function findConversation(organizationId: string, id: string, now?: Date) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  // `v.id = $2`, not conversationRows' `= any($2)`: a generic plan counts ten elements in an array,
  // so PostgreSQL kept planning that statement for its one id on every run (1.6-1.9 ms, its last
  // message's lateral over every month of `messages`); for one id its generic plan costs the same,
  // is chosen after five runs and is planned once a connection (bench/results.md).
  const [row] = await rawQuery(ROW_SELECT(`select v.* from conversations v where v.organization_id = $1 and v.id = $2::uuid`), [
    organizationId,
    id,
  ]);
  return row ? conversationRow(row, now) : null;
}

/**
 * One conversation of the organisation for a page under /chat/<id> (the route has checked its declared
 * permission): the page's 404 in words for an unknown, another organisation's or malformed id.
 */
export async function conversationOr404(organizationId: string, id: string, now?: Date) {
  const conversation = await findConversation(organizationId, id, now);
  if (!conversation) throw data(m.inbox_conversation_not_found(), { status: 404 });
  return conversation;
}

const ROW_SELECT = (page: string) => `
  select v.id, v.contact_id, v.phone_number_id, v.last_message_at, v.last_message_at::text as cursor_at, v.last_inbound_at,
         v.unread_count, v.status, c.name, c.phone, ${memberColumns("u", "assignee")},
         (select p.phone_digits from whatsapp_phone_numbers p where p.phone_number_id = v.phone_number_id and p.organization_id = v.organization_id
          order by p.disconnected_at nulls first limit 1) as business_digits,
         lm.id as last_id, lm.direction as last_direction, lm.status as last_status, lm.body as last_body, lm.message_type as last_type,
         lm.payload as last_payload, lm.accepted_at as last_accepted, lm.delivered_at as last_delivered, lm.read_at as last_read,
         lm.failed_at as last_failed, lm.body_expired_at is not null as last_body_expired, v.free_entry_until,
         ad.headline as ad_headline, ad.body as ad_body, ad.source_url as ad_source_url, ad.source_type as ad_source_type,
         case when ad.picture_file_id is not null then ad.id end as ad_picture
  from (${page}) v
  join contacts c on c.id = v.contact_id
  left join users u on u.id = v.assigned_to
  left join ad_referrals ad on ad.id = v.ad_referral_id
  left join lateral (
    select m.id, m.direction, m.status, m.body, m.message_type, m.payload, m.accepted_at, m.delivered_at, m.read_at, m.failed_at,
           m.body_expired_at
    from messages m
    where m.contact_id = v.contact_id and m.organization_id = v.organization_id and m.phone_number_id = v.phone_number_id
      and m.message_type <> 'reaction'
    order by m.created_at desc, m.seq desc limit 1) lm on true`;

/** An outbound message's tick from its times (the status column lags Meta's answer until the first webhook). */
export function statusOf(row: Row, prefix = ""): MessageStatus {
  const at = (name: string) => row[`${prefix}${name}`] !== null && row[`${prefix}${name}`] !== undefined;
  if (row[`${prefix}direction`] === "inbound") return "received";
  if (at("failed") || at("failed_at")) return "failed";
  if (at("read") || at("read_at")) return "read";
  if (at("delivered") || at("delivered_at")) return "delivered";
  if (at("accepted") || at("accepted_at") || row[`${prefix}status`] === "sent") return "sent";
  return "queued";
}

function conversationRow(row: Row, now?: Date): ConversationRow {
  const lastInboundAt = row.last_inbound_at ? new Date(row.last_inbound_at as string).toISOString() : null;
  const lastMessage = row.last_id
    ? {
        text: contentLine(
          messageContent({
            id: String(row.last_id),
            direction: row.last_direction === "inbound" ? "inbound" : "outbound",
            messageType: String(row.last_type ?? "text"),
            body: String(row.last_body ?? ""),
            payload: row.last_payload,
            bodyExpired: row.last_body_expired === true,
            template: null,
            mediaFile: null,
            errorTitle: null,
            errorDetails: null,
          }),
        ),
        direction: (row.last_direction === "inbound" ? "inbound" : "outbound") as "inbound" | "outbound",
        status: statusOf({
          direction: row.last_direction,
          status: row.last_status,
          failed: row.last_failed,
          read: row.last_read,
          delivered: row.last_delivered,
          accepted: row.last_accepted,
        }),
      }
    : null;
  return {
    id: String(row.id),
    contactId: String(row.contact_id),
    name: String(row.name ?? "") || String(row.phone ?? m.inbox_whatsapp_user()),
    phone: (row.phone as string | null) ?? null,
    phoneNumberId: String(row.phone_number_id),
    businessNumber: row.business_digits ? `+${String(row.business_digits)}` : String(row.phone_number_id),
    lastMessage,
    lastMessageAt: new Date(row.last_message_at as string).toISOString(),
    lastInboundAt,
    unread: Number(row.unread_count ?? 0),
    status: row.status === "resolved" ? "resolved" : "open",
    assignee: memberOf(row, "assignee"),
    window: serviceWindow(lastInboundAt, now),
    ad: row.ad_source_type
      ? {
          headline: (row.ad_headline as string | null) ?? null,
          body: (row.ad_body as string | null) ?? null,
          sourceUrl: (row.ad_source_url as string | null) ?? null,
          // Fetched into storage (decision 157): served behind the inbox's permission, never Meta's CDN address.
          picture: row.ad_picture ? `/chat/ads/${row.ad_picture as string}/picture` : null,
        }
      : null,
    freeEntryUntil: row.free_entry_until ? new Date(row.free_entry_until as string).toISOString() : null,
  };
}
