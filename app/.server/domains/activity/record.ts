import { db, type Executor } from "../../infrastructure/db/client";
import { activityLogs } from "../../infrastructure/db/schema";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { log } from "../../infrastructure/log";

export type ActivityType = "login" | "message" | "template" | "billing" | "settings" | "security" | "system" | "auth" | "profile";
export type ActivityStatus = "success" | "warning" | "error";

export interface ActivityEntry {
  organizationId: string;
  userId?: string | null;
  type: ActivityType;
  status: ActivityStatus;
  action: string;
  details?: string;
  meta?: RequestMeta;
}

/** Appends one record to the tenant's activity log (in the caller's transaction when it passes one). */
export async function recordActivity(entry: ActivityEntry, executor: Executor = db()) {
  await executor.insert(activityLogs).values({
    organizationId: entry.organizationId,
    userId: entry.userId ?? null,
    type: entry.type,
    status: entry.status,
    action: entry.action,
    details: entry.details ?? "",
    ipAddress: entry.meta?.ip ?? null,
    userAgent: entry.meta?.userAgent ?? null,
  });
  log().info({ organizationId: entry.organizationId, type: entry.type, status: entry.status, action: entry.action }, "activity");
}
