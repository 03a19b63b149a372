import { and, eq } from "drizzle-orm";
import { db } from "../db/client";
import { activityLogs } from "../db/schema";
import { NEWEST_FIRST } from "./log-queries";

/** The newest records of one tenant (optionally one user), newest first. */
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
