import { onceInRequest } from "../../infrastructure/http/context";
import { and, eq, sql } from "drizzle-orm";
import { preparedQuery } from "../../infrastructure/db/prepared";
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
  const limit = options.limit ?? 10;
  return options.userId ? recentOfUser({ organizationId, userId: options.userId, limit }) : recentOfTenant({ organizationId, limit });
}

const RECENT_COLUMNS = {
  id: activityLogs.id,
  type: activityLogs.type,
  status: activityLogs.status,
  action: activityLogs.action,
  details: activityLogs.details,
  ipAddress: activityLogs.ipAddress,
  createdAt: activityLogs.createdAt,
};

// Built once each (the dashboard reads the first on every visit).
const recentOfTenant = preparedQuery((database) =>
  database
    .select(RECENT_COLUMNS)
    .from(activityLogs)
    .where(eq(activityLogs.organizationId, sql.placeholder("organizationId")))
    .orderBy(NEWEST_FIRST)
    .limit(sql.placeholder("limit")),
);

const recentOfUser = preparedQuery((database) =>
  database
    .select(RECENT_COLUMNS)
    .from(activityLogs)
    .where(and(eq(activityLogs.organizationId, sql.placeholder("organizationId")), eq(activityLogs.userId, sql.placeholder("userId"))))
    .orderBy(NEWEST_FIRST)
    .limit(sql.placeholder("limit")),
);
