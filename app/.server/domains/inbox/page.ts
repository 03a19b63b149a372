import { pickerProducts } from "../shop";
import { INBOX_FILTERS, type InboxFilter } from "~/lib/inbox";
import { db, rawQuery } from "../../infrastructure/db/client";
import { latestEventId, valueButtons } from "../messaging";
import { listConversations, SEARCH_MAX, type ListQuery } from "./list";
import { listQuickReplies } from "./quick-replies";
import { threadOf } from "./thread";
import { listRowOf, type ConversationRow, type ReplyTemplate } from "~/lib/inbox";

/** The list's place as the URL carries it: search, filter, number, page. */
export interface ListPlace {
  q: string;
  filter: InboxFilter;
  number: string;
  after: string;
}

/** Reads the list's parameters, dropping what is not one (a bad filter is "all", an overlong search is cut). */
export function listPlace(url: URL): ListPlace {
  const filter = url.searchParams.get("filter") ?? "all";
  const number = url.searchParams.get("number") ?? "";
  return {
    q: (url.searchParams.get("q") ?? "").trim().slice(0, SEARCH_MAX),
    filter: (INBOX_FILTERS as readonly string[]).includes(filter) ? (filter as InboxFilter) : "all",
    number: /^\d{1,30}$/.test(number) ? number : "",
    after: (url.searchParams.get("after") ?? "").slice(0, 200),
  };
}

/** The list's query string for links that keep the member's place (without the page cursor unless asked). */
export function placeSearch(place: ListPlace, withPage = false) {
  const params = new URLSearchParams();
  if (place.q) params.set("q", place.q);
  if (place.filter !== "all") params.set("filter", place.filter);
  if (place.number) params.set("number", place.number);
  if (withPage && place.after) params.set("after", place.after);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The organisation's business numbers, for the number filter (only when there are several). */
export async function inboxNumbers(organizationId: string) {
  const rows = await rawQuery<{ phone_number_id: string; phone_digits: string; verified_name: string | null }>(
    `select distinct on (phone_number_id) phone_number_id, phone_digits, verified_name from whatsapp_phone_numbers
     where organization_id = $1 order by phone_number_id, disconnected_at nulls first`,
    [organizationId],
  );
  return rows.map((r) => ({ id: r.phone_number_id, label: `+${r.phone_digits}${r.verified_name ? ` (${r.verified_name})` : ""}` }));
}

/** The list's data for a page: its rows, the next page, the numbers, and the change log's position for the live stream. */
export async function inboxListData(organizationId: string, viewerId: string, place: ListPlace, now = new Date()) {
  const query: ListQuery = { q: place.q, filter: place.filter, number: place.number, cursor: place.after || null, viewerId, now };
  const [list, numbers, eventId] = await Promise.all([
    listConversations(organizationId, query),
    inboxNumbers(organizationId),
    latestEventId(db(), organizationId),
  ]);
  // Each line carries what the list shows and filters on, not the thread's header details.
  return { ...list, rows: list.rows.map(listRowOf), numbers, eventId, place, now: now.toISOString() };
}

/** Where the inbox's live stream starts for a page drawn now: after the organisation's latest event. */
export function inboxEventId(organizationId: string) {
  return latestEventId(db(), organizationId);
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const placeholders = (text: string) => {
  const names = [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  if (names.every((n) => /^\d+$/.test(n)))
    return Array.from({ length: names.length ? Math.max(...names.map(Number)) : 0 }, (_, i) => String(i + 1));
  return [...new Set(names)];
};

/** The templates the closed-window picker offers for the conversation's number. */
export async function replyTemplates(organizationId: string, phoneNumberId: string): Promise<ReplyTemplate[]> {
  const rows = await rawQuery<{ id: string; name: string; language: string; category: string; components: Record<string, unknown>[] }>(
    `select t.id, t.name, t.language, t.category, t.components from message_templates t
     where t.organization_id = $1 and t.status = 'approved' and t.deleting_at is null
       and t.waba_id in (select a.waba_id from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
                         where p.phone_number_id = $2 and p.organization_id = $1)
     order by t.name, t.language limit 200`,
    [organizationId, phoneNumberId],
  );
  return rows.map((row): ReplyTemplate => {
    const part = (type: string) => row.components.find((c) => String(c.type).toUpperCase() === type);
    const header = part("HEADER");
    const format = String(header?.format ?? "").toUpperCase();
    const body = String(part("BODY")?.text ?? "");
    const headerText = header && format === "TEXT" ? String(header.text ?? "") : null;
    return {
      id: row.id,
      name: row.name,
      language: row.language,
      category: row.category.toLowerCase(),
      header: headerText,
      headerMedia:
        format === "IMAGE" || format === "VIDEO" || format === "DOCUMENT" ? (format.toLowerCase() as "image" | "video" | "document") : null,
      body,
      footer: part("FOOTER") ? String(part("FOOTER")?.text ?? "") : null,
      parameters: placeholders(body),
      headerTakesValue: headerText !== null && placeholders(headerText).length > 0,
      buttons: valueButtons(row.components).map((b) => ({ index: b.index, kind: b.kind, text: b.text, url: b.url })),
    };
  });
}

/** Members a conversation can be assigned to: those who answer customers. */
export async function assignableMembers(organizationId: string) {
  const rows = await rawQuery<{ id: string; first_name: string; last_name: string }>(
    `select id, first_name, last_name from users where organization_id = $1 and org_role in ('owner', 'admin', 'agent')
     order by first_name, last_name, id limit 500`,
    [organizationId],
  );
  return rows.map((r) => ({ id: r.id, name: `${r.first_name} ${r.last_name}`.trim() }));
}

/** The product picker's search carried in the conversation's address (its GET form): the words, the boxes ticked, the fields typed. */
export function productPickerOf(url: URL) {
  const values: Record<string, string> = {};
  const chosenIds: string[] = [];
  for (const [name, value] of url.searchParams) {
    if (name.startsWith("product_") && value === "on" && chosenIds.length < 60) {
      chosenIds.push(name.slice("product_".length));
      values[name] = "on";
    } else if (name === "productKind" || name === "productHeader" || name === "productBody") values[name] = value.slice(0, 1024);
  }
  return { query: (url.searchParams.get("pq") ?? "").slice(0, 100), chosenIds, values };
}
export type ProductPickerAsk = ReturnType<typeof productPickerOf>;

/** A conversation's page beside the list: the thread, and what the composer and the header need. */
export async function conversationData(
  organizationId: string,
  conversation: ConversationRow,
  before: string | null,
  picker: ProductPickerAsk = { query: "", chosenIds: [], values: {} },
) {
  const [thread, quickReplies, members, templates, shopProducts] = await Promise.all([
    threadOf(
      { organizationId, conversationId: conversation.id, contactId: conversation.contactId, phoneNumberId: conversation.phoneNumberId },
      before,
    ),
    listQuickReplies(organizationId),
    assignableMembers(organizationId),
    conversation.window.open ? Promise.resolve([]) : replyTemplates(organizationId, conversation.phoneNumberId),
    conversation.window.open ? pickerProducts(organizationId, picker) : Promise.resolve(null),
  ]);
  return { thread, quickReplies, members, templates, shopProducts: shopProducts && { ...shopProducts, values: picker.values } };
}
