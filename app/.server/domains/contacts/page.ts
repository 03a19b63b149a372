import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { decodeKeysetCursor, encodeKeysetCursor } from "../../infrastructure/db/keyset";
import { contactConditions, type ContactFilter } from "./manage";
import { contactLineOf } from "./views";

/** A phone-sized page, as the inbox's (issue 42: the tab's first page within 40 KB of HTML with its filters, bulk form and the shell; 20 were 42). */
export const CONTACTS_PAGE_SIZE = 15;
/** "All N matching" counts this far; past it the page says "10,000+" (a count of a million rows is not free). */
export const COUNT_CAP = 10_000;

type LineRow = Parameters<typeof contactLineOf>[0];

/**
 * One page of the Contacts tab, newest first: `after` a cursor (older) or `before` one (newer), by
 * the (created_at, id) index, so page 500 costs what page 1 does. Answers the cursors either way.
 */
export async function contactsPage(
  organizationId: string,
  filter: ContactFilter,
  cursors: { after?: string | null; before?: string | null },
) {
  const before = decodeKeysetCursor(cursors.before);
  const after = before ? undefined : decodeKeysetCursor(cursors.after);
  const bound = before
    ? sql` and (c.created_at, c.id) > (${before.at}::timestamptz, ${before.id}::uuid)`
    : after
      ? sql` and (c.created_at, c.id) < (${after.at}::timestamptz, ${after.id}::uuid)`
      : sql``;
  // The index is (organization_id, created_at desc nulls last, id desc nulls last): the order must say
  // its nulls as the index does (or its backward scan), or PostgreSQL sorts every row of the tenant.
  const order = before ? sql`c.created_at asc nulls first, c.id asc nulls first` : sql`c.created_at desc nulls last, c.id desc nulls last`;
  const rows = await queryRows<LineRow & { cursor_at: string }>(
    db(),
    sql`
      select c.id, c.name, c.phone, c.tags, c.opt_in, c.last_seen_at, c.created_at::text as cursor_at from contacts c
      where ${contactConditions(organizationId, filter)}${bound}
      order by ${order} limit ${CONTACTS_PAGE_SIZE + 1}`,
  );
  const more = rows.length > CONTACTS_PAGE_SIZE;
  const shown = rows.slice(0, CONTACTS_PAGE_SIZE);
  if (before) shown.reverse();
  const first = shown[0];
  const last = shown.at(-1);
  const cursor = (row: (typeof shown)[number] | undefined) => (row ? encodeKeysetCursor(row.cursor_at, row.id) : null);
  return {
    // A line of the list carries its columns only (issue 42: the rest was a third of the page's data).
    contacts: shown.map(contactLineOf),
    newer: (before ? more : !!after) ? cursor(first) : null,
    older: (before ? true : more) && shown.length ? cursor(last) : null,
  };
}

/** How many contacts the filter matches, counted up to COUNT_CAP + 1. */
export async function countMatching(organizationId: string, filter: ContactFilter) {
  const rows = await queryRows<{ n: number }>(
    db(),
    sql`select count(*)::int as n from (select 1 from contacts c where ${contactConditions(organizationId, filter)} limit ${COUNT_CAP + 1}) m`,
  );
  const n = rows[0]?.n ?? 0;
  return { count: Math.min(n, COUNT_CAP), more: n > COUNT_CAP };
}
