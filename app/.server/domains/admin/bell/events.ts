import { sql, type SQL } from "drizzle-orm";
import { alertInWords } from "../system/alerts";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { isTenant } from "../users/tenants";
import { m } from "~/paraglide/messages";

/**
 * The admin console's bell: platform events derived by query, no table of their own. Four sources,
 * each read newest first from its own index and limited before the UNION:
 *   signup  organisations created (organizations_created_idx), the platform's own excepted
 *   dispute invoice disputes opened (invoice_disputes_created_idx)
 *   job     background jobs that gave up (jobs_failed_idx, partial)
 *   alert   open health alerts raised by the System tab's rules (system_alerts, one open per rule and key)
 * An event is unread when it happened after the administrator's users.admin_bell_seen_at.
 */
export const BELL_KINDS = ["alert", "dispute", "job", "signup"] as const;
export type BellKind = (typeof BELL_KINDS)[number];

export interface BellEvent {
  kind: BellKind;
  id: string;
  at: Date;
  title: string;
  detail: string | null;
  /** The console page it is about. */
  to: string;
  level: "info" | "warning" | "error";
  /** Its place in the list, for the pager: "<at to the microsecond>|<kind>|<id>". */
  cursor: string;
}

/** A page position: the events strictly older (after) or newer (before) than this one. */
export interface BellCursor {
  at: string;
  kind: BellKind;
  id: string;
}

/** The unread count stops here: the dot says "9+" beyond it. */
export const UNREAD_CAP = 10;

interface Source {
  kind: BellKind;
  at: SQL;
  id: SQL;
  select: (where: SQL, order: "asc" | "desc", limit: number) => SQL;
  /** Rows after a moment, for the unread count. */
  since: (after: SQL) => SQL;
}

const SOURCES: Source[] = [
  {
    kind: "signup",
    at: sql`o.created_at`,
    id: sql`o.id::text`,
    select: (where, order, limit) => sql`
      select 'signup' as kind, o.id::text as id, o.created_at as at, o.name as title,
             o.business_id || ' · ' || o.plan_type as detail, null::text as level, o.id::text as target
      from organizations o where ${where} and ${isTenant()}
      order by o.created_at ${sql.raw(order)}, o.id::text ${sql.raw(order)} limit ${limit}`,
    since: (after) => sql`select 1 from organizations o where o.created_at > ${after} and ${isTenant()}`,
  },
  {
    kind: "dispute",
    at: sql`d.created_at`,
    id: sql`d.id::text`,
    select: (where, order, limit) => sql`
      select 'dispute', d.id::text, d.created_at, i.number, o.name || ': ' || left(d.reason, 140), null::text, d.id::text
      from invoice_disputes d join invoices i on i.id = d.invoice_id join organizations o on o.id = d.organization_id
      where ${where}
      order by d.created_at ${sql.raw(order)}, d.id::text ${sql.raw(order)} limit ${limit}`,
    since: (after) => sql`select 1 from invoice_disputes d where d.created_at > ${after}`,
  },
  {
    kind: "job",
    at: sql`j.failed_at`,
    id: sql`j.id::text`,
    select: (where, order, limit) => sql`
      select 'job', j.id::text, j.failed_at, j.queue, left(coalesce(j.last_error, ''), 160), 'error', j.id::text
      from jobs j where j.failed_at is not null and ${where}
      order by j.failed_at ${sql.raw(order)}, j.id::text ${sql.raw(order)} limit ${limit}`,
    since: (after) => sql`select 1 from jobs j where j.failed_at is not null and j.failed_at > ${after}`,
  },
  {
    kind: "alert",
    at: sql`a.opened_at`,
    id: sql`a.id::text`,
    select: (where, order, limit) => sql`
      select 'alert', a.id::text, a.opened_at, a.title, a.details, a.level, a.id::text
      from system_alerts a where a.resolved_at is null and ${where}
      order by a.opened_at ${sql.raw(order)}, a.id::text ${sql.raw(order)} limit ${limit}`,
    since: (after) => sql`select 1 from system_alerts a where a.resolved_at is null and a.opened_at > ${after}`,
  },
];

/** The condition "this source's row comes after (older) / before (newer) the cursor" in newest-first order. */
function beyond(source: Source, cursor: BellCursor | undefined, direction: "older" | "newer"): SQL {
  if (!cursor) return sql`true`;
  const at = sql`${cursor.at}::timestamptz`;
  const cmp = direction === "older" ? sql.raw("<") : sql.raw(">");
  const cmpOrEqual = direction === "older" ? sql.raw("<=") : sql.raw(">=");
  // Ties on the moment are broken by kind, then id, both descending.
  const kindFirst = direction === "older" ? source.kind < cursor.kind : source.kind > cursor.kind;
  if (source.kind === cursor.kind)
    return sql`${source.at} ${cmpOrEqual} ${at} and (${source.at} ${cmp} ${at} or ${source.id} ${cmp} ${cursor.id})`;
  return kindFirst ? sql`${source.at} ${cmpOrEqual} ${at}` : sql`${source.at} ${cmp} ${at}`;
}

interface EventRow {
  kind: BellKind;
  id: string;
  at: Date | string;
  at_text: string;
  title: string;
  detail: string | null;
  level: string | null;
  target: string;
  unread?: number | string;
}

function unionOf(limit: number, cursor: BellCursor | undefined, direction: "older" | "newer") {
  const order = direction === "older" ? "desc" : "asc";
  return sql.join(
    SOURCES.map((s) => sql`(${s.select(beyond(s, cursor, direction), order, limit)})`),
    sql` union all `,
  );
}

/** The unread count, capped: each source stops at UNREAD_CAP rows. */
function unreadCount(seenAt: Date | null) {
  const after = seenAt ? sql`${seenAt.toISOString()}::timestamptz` : sql`'-infinity'::timestamptz`;
  return sql.join(
    SOURCES.map((s) => sql`(select count(*) from (${s.since(after)} limit ${UNREAD_CAP}) x)`),
    sql` + `,
  );
}

const AT_TEXT = sql`to_char(e.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function toEvent(row: EventRow): BellEvent {
  const at = row.at instanceof Date ? row.at : new Date(row.at);
  const base = { kind: row.kind, id: row.id, at, cursor: `${row.at_text}|${row.kind}|${row.id}` };
  switch (row.kind) {
    case "signup":
      return {
        ...base,
        title: m.admin_bell_signup_title({ name: row.title }),
        detail: row.detail,
        to: `/admin/users/${row.target}`,
        level: "info",
      };
    case "dispute":
      return {
        ...base,
        title: m.admin_bell_dispute_title({ number: row.title }),
        detail: row.detail,
        to: `/admin/billing/disputes/${row.target}`,
        level: "warning",
      };
    case "job":
      return {
        ...base,
        title: m.admin_bell_job_title({ queue: row.title }),
        detail: row.detail || null,
        to: "/admin/system",
        level: "error",
      };
    default:
      return {
        ...base,
        title: alertInWords(row.title),
        detail: row.detail === null ? null : alertInWords(row.detail),
        to: "/admin/system",
        level: row.level === "error" ? "error" : "warning",
      };
  }
}

/** What the header's bell shows: the newest `limit` events and the unread count, in one statement. */
export async function bellSummary(_scope: PlatformScope, seenAt: Date | null, limit = 5) {
  const rows = await queryRows<EventRow>(
    db(),
    sql`
    with latest as (${unionOf(limit, undefined, "older")}),
         counted as (select ${unreadCount(seenAt)} as unread)
    select e.kind, e.id, e.at, ${AT_TEXT} as at_text, e.title, e.detail, e.level, e.target, c.unread
    from counted c left join latest e on true
    order by e.at desc nulls last, e.kind desc, e.id desc
    limit ${limit}`,
  );
  const unread = Number(rows[0]?.unread ?? 0);
  return { unread, events: rows.filter((r) => r.kind).map(toEvent) };
}

/** Reads "<at>|<kind>|<id>" from the URL; anything else is no cursor. */
export function readCursor(raw: string | null): BellCursor | undefined {
  if (!raw) return undefined;
  const [at, kind, id, ...rest] = raw.split("|");
  if (rest.length || !at || !kind || !id || id.length > 64) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(at) || Number.isNaN(Date.parse(at))) return undefined;
  if (!(BELL_KINDS as readonly string[]).includes(kind)) return undefined;
  return { at, kind: kind as BellKind, id };
}

/**
 * A page of events, newest first, by keyset: `after` gives the ones older than a cursor, `before`
 * the ones newer. `newer`/`older` are the cursors of the neighbouring pages (null at either end).
 */
export async function bellPage(_scope: PlatformScope, options: { after?: BellCursor; before?: BellCursor; limit?: number }) {
  const limit = options.limit ?? 25;
  const direction = options.before ? "newer" : "older";
  const cursor = options.before ?? options.after;
  const order = direction === "older" ? sql.raw("desc") : sql.raw("asc");
  const rows = await queryRows<EventRow>(
    db(),
    sql`
    select e.kind, e.id, e.at, ${AT_TEXT} as at_text, e.title, e.detail, e.level, e.target
    from (${unionOf(limit + 1, cursor, direction)}) e
    order by e.at ${order}, e.kind ${order}, e.id ${order}
    limit ${limit + 1}`,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (direction === "newer") page.reverse();
  const events = page.map(toEvent);
  const first = events[0]?.cursor ?? null;
  const last = events.at(-1)?.cursor ?? null;
  return {
    events,
    // Going older: newer pages exist when we came from a cursor; going newer: older ones always exist.
    newer: direction === "older" ? (cursor ? first : null) : more ? first : null,
    older: direction === "older" ? (more ? last : null) : last,
  };
}
