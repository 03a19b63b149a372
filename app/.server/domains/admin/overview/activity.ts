import { sql } from "drizzle-orm";
import { readDb } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { isTimestamp } from "../../../infrastructure/db/keyset";
import { isTenant } from "../users/tenants";

export interface TenantActivity {
  id: number;
  organizationId: string;
  organizationName: string;
  type: string;
  status: string;
  action: string;
  details: string;
  createdAt: string;
}

/** Days the Overview's Export Data covers. */
export const ACTIVITY_EXPORT_DAYS = 30;

/**
 * Every tenant's activity records (not the platform's own organisation's), newest first, with their organisation's name: one keyset page
 * along activity_logs_created_idx. Its order spells out "nulls last" as the index does: "desc" alone means nulls first, which
 * the planner cannot read off that index (a sort of every record instead). `since` bounds the export to recent days.
 */
export async function recentActivity(_scope: PlatformScope, options: { limit?: number; cursor?: string | null; since?: Date } = {}) {
  const limit = Math.min(options.limit ?? 10, 500);
  const after = readCursor(options.cursor);
  const rows = await queryRows<{
    id: number | string;
    organization_id: string;
    name: string;
    type: string;
    status: string;
    action: string;
    details: string;
    created_at: string | Date;
    at: string;
  }>(await readDb(), recentActivityStatement(limit, after, options.since));
  const records: TenantActivity[] = rows.slice(0, limit).map((r) => ({
    id: Number(r.id),
    organizationId: r.organization_id,
    organizationName: r.name,
    type: r.type,
    status: r.status,
    action: r.action,
    details: r.details,
    createdAt: new Date(r.created_at).toISOString(),
  }));
  const last = rows[limit - 1];
  return { records, next: rows.length > limit && last ? Buffer.from(`${last.at}|${last.id}`).toString("base64url") : null };
}

/** recentActivity's statement, on its own so a test can EXPLAIN it (it must read activity_logs_created_idx, never sort). */
export function recentActivityStatement(limit: number, after?: { at: string; id: string }, since?: Date) {
  return sql`
    select a.id, a.organization_id, (select o.name from organizations o where o.id = a.organization_id) as name,
           a.type, a.status, a.action, a.details, a.created_at, a.created_at::text as at
    from activity_logs a
    where ${isTenant("a", "organization_id")}
      ${since ? sql`and a.created_at >= ${since.toISOString()}::timestamptz` : sql``}
      ${after ? sql`and (a.created_at, a.id) < (${after.at}::timestamptz, ${after.id}::bigint)` : sql``}
    order by a.created_at desc nulls last, a.id desc nulls last
    limit ${limit + 1}`;
}

/** A page's position: the last row's created_at as the database wrote it (microseconds kept) and its id. */
function readCursor(cursor: string | null | undefined) {
  if (!cursor || cursor.length > 200) return undefined;
  const [at, id, extra] = Buffer.from(cursor, "base64url").toString().split("|");
  if (extra !== undefined || !at || !id || !/^[1-9]\d{0,17}$/.test(id) || !isTimestamp(at)) return undefined;
  return { at, id };
}
