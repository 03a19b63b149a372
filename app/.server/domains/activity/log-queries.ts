import { sql, type SQL } from "drizzle-orm";
import { db, readDb } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { ActivityFilter } from "./filters";
import { scopeCondition, type DataScope } from "../../infrastructure/db/scope";
import { NAIROBI_OFFSET_MS } from "~/lib/dates";

/**
 * The activity log, read page by page. Keyset paging on (created_at, id), newest first, on the
 * indexes of migration 0002: the first page of a tenant with a million records reads as many rows
 * as one with ten. A platform scope (app/.server/infrastructure/db/scope.ts) reads every tenant: the admin console.
 */

export type ActivityScope = DataScope;

export interface ActivityRecord {
  id: number;
  type: string;
  status: string;
  action: string;
  details: string;
  ipAddress: string | null;
  userAgent: string | null;
  timestamp: string;
}

interface Row {
  id: number | string;
  type: string;
  status: string;
  action: string;
  details: string;
  ip_address: string | null;
  user_agent: string | null;
  at: string;
}

export const PAGE_SIZE = 50;

/** An opaque position after a record: its created_at to the microsecond, and its id. */
export function encodeCursor(at: string, id: number) {
  return Buffer.from(`${at}|${id}`).toString("base64url");
}

export function decodeCursor(cursor: string | null | undefined): { at: string; id: number } | null {
  if (!cursor || cursor.length > 120) return null;
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!at || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(at) || !id || !/^\d{1,19}$/.test(id)) return null;
  return { at, id: Number(id) };
}

function conditions(scope: ActivityScope, filter: ActivityFilter, after?: { at: string; id: number } | null): SQL {
  const parts: SQL[] = [
    sql`created_at >= ${filter.start.toISOString()}::timestamptz`,
    sql`created_at < ${filter.end.toISOString()}::timestamptz`,
  ];
  const inScope = scopeCondition(scope);
  if (inScope) parts.push(inScope);
  if (filter.type) parts.push(sql`type = ${filter.type}`);
  if (filter.status) parts.push(sql`status = ${filter.status}`);
  if (after) parts.push(sql`(created_at, id) < (${after.at}::timestamptz, ${after.id})`);
  return sql.join(parts, sql` and `);
}

/**
 * The indexes are built `desc nulls last` (drizzle's .desc()); plain `desc` means nulls first in
 * PostgreSQL, an order no index has, and turns every page into a sort of the whole table.
 */
export const NEWEST_FIRST = sql.raw("created_at desc nulls last, id desc nulls last");

const COLUMNS = sql.raw(`id, type, status, action, details, ip_address, user_agent,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at`);

function toRecord(row: Row): ActivityRecord {
  return {
    id: Number(row.id),
    type: row.type,
    status: row.status,
    action: row.action,
    details: row.details,
    ipAddress: row.ip_address,
    userAgent: row.user_agent,
    timestamp: row.at,
  };
}

/** Up to `limit` records after `cursor`, and the cursor of the next page (null on the last). */
export async function listActivity(scope: ActivityScope, filter: ActivityFilter, options: { cursor?: string | null; limit?: number } = {}) {
  const limit = Math.min(Math.max(options.limit ?? PAGE_SIZE, 1), 1000);
  const after = decodeCursor(options.cursor);
  const rows = await queryRows<Row>(
    db(),
    sql`select ${COLUMNS} from activity_logs where ${conditions(scope, filter, after)} order by ${NEWEST_FIRST} limit ${limit + 1}`,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { logs: page.map(toRecord), nextCursor: rows.length > limit && last ? encodeCursor(last.at, Number(last.id)) : null };
}

/**
 * Every matching record, newest first, in chunks read by keyset (the export streams these): a heavy
 * read, on the replica when it can serve the request (decision 163), each chunk asking again so a
 * replica that went down or fell behind mid-export hands over to the primary.
 */
export async function* activityChunks(scope: ActivityScope, filter: ActivityFilter, chunkSize = 2000) {
  let after: { at: string; id: number } | null = null;
  for (;;) {
    const rows: Row[] = await queryRows<Row>(
      await readDb(),
      sql`select ${COLUMNS} from activity_logs where ${conditions(scope, filter, after)} order by ${NEWEST_FIRST} limit ${chunkSize}`,
    );
    if (!rows.length) return;
    yield rows.map(toRecord);
    if (rows.length < chunkSize) return;
    const last: Row = rows[rows.length - 1]!;
    after = { at: last.at, id: Number(last.id) };
  }
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

type StatusCounts = { status: string; n: number | string }[];

/**
 * Counts by status for the period (and type), for the stat cards, in three tiers: whole Nairobi
 * days from activity_daily_counts, whole hours at either end from activity_hourly_counts, and only
 * the partial hours at the very ends counted record by record. Exact, and about a hundred small
 * rows per type and status for 90 days, however many records there are.
 */
export async function activityStats(scope: ActivityScope, filter: Pick<ActivityFilter, "type" | "start" | "end">) {
  const parts: Promise<StatusCounts>[] = [];
  const { start, end } = filter;
  const dayStart = new Date(Math.ceil((start.getTime() + NAIROBI_OFFSET_MS) / DAY_MS) * DAY_MS - NAIROBI_OFFSET_MS);
  const dayEnd = new Date(Math.floor((end.getTime() + NAIROBI_OFFSET_MS) / DAY_MS) * DAY_MS - NAIROBI_OFFSET_MS);
  if (dayStart.getTime() < dayEnd.getTime()) {
    parts.push(bucketCounts(scope, filter.type, "daily", dayStart, dayEnd));
    if (start < dayStart) hourTier(scope, filter.type, start, dayStart, parts);
    if (dayEnd < end) hourTier(scope, filter.type, dayEnd, end, parts);
  } else hourTier(scope, filter.type, start, end, parts);

  const totals = { total: 0, success: 0, warning: 0, error: 0 };
  for (const rows of await Promise.all(parts))
    for (const row of rows) {
      const n = Number(row.n);
      totals.total += n;
      if (row.status === "success" || row.status === "warning" || row.status === "error") totals[row.status] += n;
    }
  return totals;
}

function hourTier(scope: ActivityScope, type: ActivityFilter["type"], start: Date, end: Date, parts: Promise<StatusCounts>[]) {
  const startCeil = new Date(Math.ceil(start.getTime() / HOUR_MS) * HOUR_MS);
  const endFloor = new Date(Math.floor(end.getTime() / HOUR_MS) * HOUR_MS);
  if (startCeil.getTime() >= endFloor.getTime()) {
    parts.push(exactCounts(scope, type, start, end));
    return;
  }
  parts.push(bucketCounts(scope, type, "hourly", startCeil, endFloor));
  if (start < startCeil) parts.push(exactCounts(scope, type, start, startCeil));
  if (endFloor < end) parts.push(exactCounts(scope, type, endFloor, end));
}

function exactCounts(scope: ActivityScope, type: ActivityFilter["type"], start: Date, end: Date) {
  return queryRows<{ status: string; n: number | string }>(
    db(),
    sql`select status, count(*) as n from activity_logs where ${conditions(scope, { type, start, end, range: "custom" })} group by status`,
  );
}

function bucketCounts(scope: ActivityScope, type: ActivityFilter["type"], table: "daily" | "hourly", start: Date, end: Date) {
  const where: SQL[] =
    table === "daily"
      ? [sql`day >= ${nairobiDay(start)}::date`, sql`day < ${nairobiDay(end)}::date`]
      : [sql`hour >= ${start.toISOString()}::timestamptz`, sql`hour < ${end.toISOString()}::timestamptz`];
  const inScope = scopeCondition(scope);
  if (inScope) where.push(inScope);
  if (type) where.push(sql`type = ${type}`);
  const from = sql.raw(table === "daily" ? "activity_daily_counts" : "activity_hourly_counts");
  return queryRows<{ status: string; n: number | string }>(
    db(),
    sql`select status, sum(count) as n from ${from} where ${sql.join(where, sql` and `)} group by status`,
  );
}

function nairobiDay(at: Date) {
  return new Date(at.getTime() + NAIROBI_OFFSET_MS).toISOString().slice(0, 10);
}
