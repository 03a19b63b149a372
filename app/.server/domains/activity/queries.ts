import { onceInRequest } from "../../infrastructure/http/context";
import { and, eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { activityLogs } from "../../infrastructure/db/schema";
import { NEWEST_FIRST } from "./log-queries";

/** The newest records of one tenant (optionally one user), newest first. */
/** Rows the dashboard's Recent Activity reads: enough that a run of repeats still leaves five distinct entries. */
export const RECENT_ROWS = 30;

/** The organisation's newest activity, read once per request for the shell's bell and the dashboard. */
export function recentActivityOnce(context: unknown, organizationId: string) {
  return onceInRequest(context, `recent-activity:${organizationId}`, () => listRecentActivity(organizationId, { limit: RECENT_ROWS }));
}

export async function listRecentActivity(organizationId: string, options: { userId?: string; limit?: number } = {}) {
  const where = options.userId
    ? and(eq(activityLogs.organizationId, organizationId), eq(activityLogs.userId, options.userId))
    : eq(activityLogs.organizationId, organizationId);
  return db()
    .select({
      id: activityLogs.id,
      type: activityLogs.type,
      status: activityLogs.status,
      action: activityLogs.action,
      details: activityLogs.details,
      ipAddress: activityLogs.ipAddress,
      createdAt: activityLogs.createdAt,
    })
    .from(activityLogs)
    .where(where)
    .orderBy(NEWEST_FIRST)
    .limit(options.limit ?? 10);
}
