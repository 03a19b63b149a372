import { heardOwnChange, rawQuery } from "../../infrastructure/db/client";
import { decodeKeysetCursor, encodeKeysetCursor, isUuid } from "../../infrastructure/db/keyset";
import type { NotificationEvent } from "../../infrastructure/db/schema";
import { NOTIFICATION_CHANNEL } from "./notify";
import { noticeIn } from "./words";
import { getLocale, type Locale } from "~/paraglide/runtime";

/** Whose notifications: the signed-in member, in their organisation. Nothing else is ever read or changed. */
export interface Reader {
  userId: string;
  organizationId: string;
}

export interface NotificationView {
  id: string;
  event: NotificationEvent;
  title: string;
  body: string;
  link: string | null;
  at: string;
  read: boolean;
}

/**
 * A notification as the bell lists it on every signed-in page: its title, when, and whether it is
 * read. What it says in full is on /notifications (issue 42: the bodies were 1-2 KB of every page).
 */
export type BellItem = Pick<NotificationView, "id" | "title" | "at" | "read">;

/** The most the bell counts: beyond it shows "99+". */
export const UNREAD_CAP = 100;
/** The bell's latest few. */
export const BELL_ROWS = 5;

interface Row {
  id: string;
  event: NotificationEvent;
  title: string;
  body: string;
  /** What it says as messages (words.ts); null on rows written before issue 43. */
  words: unknown;
  link: string | null;
  created_at: Date | string;
  at: string;
  read_at: Date | string | null;
}

const view = (r: Row, locale: Locale): NotificationView => ({
  id: r.id,
  event: r.event,
  ...noticeIn(locale, r),
  link: r.link,
  at: new Date(r.created_at).toISOString(),
  read: r.read_at !== null,
});

/**
 * The bell: the member's latest notifications and how many are unread (counted to UNREAD_CAP), in
 * one statement. Its live stream sends it as a page opens and whenever it changes, from outside the
 * request that opened it: it passes the request's language rather than reading it then.
 */
export async function bellOf(reader: Reader, locale: Locale = getLocale()): Promise<{ unread: number; items: BellItem[] }> {
  const rows = await rawQuery<Pick<Row, "id" | "title" | "words" | "created_at" | "read_at"> & { unread: number }>(
    `select c.unread, n.id, n.title, n.words, n.created_at, n.read_at
     from (select count(*)::int as unread from (
             select 1 from notifications where user_id = $1 and organization_id = $2 and read_at is null limit ${UNREAD_CAP}) u) c
     left join lateral (
       select id, title, words, created_at, read_at from notifications
       where user_id = $1 and organization_id = $2 order by created_at desc nulls last, id desc nulls last limit ${BELL_ROWS}) n on true`,
    [reader.userId, reader.organizationId],
  );
  return {
    unread: Number(rows[0]?.unread ?? 0),
    items: rows
      .filter((r) => r.id)
      .map((r) => ({
        id: r.id,
        title: noticeIn(locale, { title: r.title, body: "", words: r.words }).title,
        at: new Date(r.created_at).toISOString(),
        read: r.read_at !== null,
      })),
  };
}

/**
 * The shell's two counts as SQL expressions on a user's and an organisation's id (columns or
 * parameters): the bell's unread notifications and the organisation's conversations with unread
 * messages, each counted to UNREAD_CAP. The session's lookup reads them in its own statement for a
 * page (sessions.ts); shellReadsOf reads them alone.
 */
export function shellCountsSql(userId: string, organizationId: string) {
  return {
    unread: `(select count(*)::int from (
               select 1 from notifications where user_id = ${userId} and organization_id = ${organizationId} and read_at is null limit ${UNREAD_CAP}) u)`,
    inboxUnread: `(select count(*)::int from (
               select 1 from conversations where organization_id = ${organizationId} and unread_count > 0 limit ${UNREAD_CAP}) i)`,
  };
}

export interface ShellReads {
  bell: { unread: number; items: null };
  inboxUnread: number | null;
}

/**
 * What the signed-in shell shows on every page, in one statement: the bell's unread count, and (for a
 * member who may open the inbox) how many of the organisation's conversations have unread messages,
 * counted to UNREAD_CAP, for the side navigation's Inbox entry (null when not asked for). The bell's
 * latest five are not in the page: its live stream's first event brings them, and without JavaScript
 * its panel says how many are unread and links to them (issue 42: 3.5 kB of every page's HTML).
 * A page's GET reads them with the session instead (no statement of their own): see the app layout.
 */
export async function shellReadsOf(reader: Reader, options: { inbox: boolean }): Promise<ShellReads> {
  const counts = shellCountsSql("$1", "$2");
  const rows = await rawQuery<{ unread: number; inbox_unread: number | null }>(
    `select ${counts.unread} as unread, ${options.inbox ? counts.inboxUnread : "null::int"} as inbox_unread`,
    [reader.userId, reader.organizationId],
  );
  return shellReadsFrom(rows[0]?.unread, options.inbox ? rows[0]?.inbox_unread : null);
}

/** The shell's reads from the two counts as read (the inbox's null when the member may not open it). */
export function shellReadsFrom(unread: number | string | null | undefined, inboxUnread: number | string | null | undefined): ShellReads {
  return {
    bell: { unread: Number(unread ?? 0), items: null },
    inboxUnread: inboxUnread === null || inboxUnread === undefined ? null : Number(inboxUnread),
  };
}

/** A page of the member's notifications, newest first, in `locale`; `next` is the cursor of the page after (older). */
export async function listNotifications(reader: Reader, options: { cursor?: string | null; limit?: number; locale?: Locale } = {}) {
  const locale = options.locale ?? getLocale();
  const limit = Math.min(Math.max(options.limit ?? 20, 1), 100);
  const after = decodeKeysetCursor(options.cursor);
  const rows = await rawQuery<Row>(
    `select id, event, title, body, words, link, created_at, created_at::text as at, read_at from notifications
     where user_id = $1 and organization_id = $2 ${after ? "and (created_at, id) < ($4::timestamptz, $5::uuid)" : ""}
     order by created_at desc nulls last, id desc nulls last limit $3`,
    after ? [reader.userId, reader.organizationId, limit + 1, after.at, after.id] : [reader.userId, reader.organizationId, limit + 1],
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => view(row, locale)),
    next: more && last ? encodeKeysetCursor(last.at, last.id) : null,
    paged: Boolean(after),
  };
}

/**
 * Marks one of the member's notifications read and answers where it links (null: no link), or
 * undefined when it is not theirs (another member's or tenant's id is not found, as a wrong one).
 */
export async function markRead(reader: Reader, id: string): Promise<{ link: string | null } | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await rawQuery<{ link: string | null; told: number }>(
    `with target as (
       select id, link, read_at from notifications where id = $1 and user_id = $2 and organization_id = $3
     ), changed as (
       update notifications n set read_at = now() from target t where n.id = t.id and t.read_at is null returning n.id
     )
     select t.link, (select count(pg_notify($4, $5)) from changed)::int as told from target t`,
    [id, reader.userId, reader.organizationId, NOTIFICATION_CHANNEL, reader.userId],
  );
  // The bell's count in every page's shell is kept per instance (decision 182): following a
  // notification is a GET, and the page it leads to must not show the count from before.
  if (row && Number(row.told) > 0) await heardOwnChange();
  return row ? { link: row.link } : undefined;
}

/** Marks every unread notification of the member read; answers how many were. */
export async function markAllRead(reader: Reader): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(
    `with changed as (
       update notifications set read_at = now() where user_id = $1 and organization_id = $2 and read_at is null returning id
     )
     select (select count(*)::int from changed) as n,
            (select count(pg_notify($3, $4)) from (select 1 from changed limit 1) one)::int as told`,
    [reader.userId, reader.organizationId, NOTIFICATION_CHANNEL, reader.userId],
  );
  return Number(row?.n ?? 0);
}
