import { sql } from "drizzle-orm";
import { queryRows } from "../db/client";
import type { PlatformScope } from "../auth/scope";

export interface SystemAlert {
  id: string;
  level: "warning" | "error";
  text: string;
}

/** Webhook deliveries waiting longer than this are an alert: the workers are behind or stopped. */
const WEBHOOK_BACKLOG_ALERT_MINUTES = 5;

/**
 * What the admin console's bell shows: background jobs parked as failed, and webhook deliveries
 * left unprocessed for minutes. One statement, read from the partial indexes over unfinished rows.
 */
export async function systemAlerts(_scope: PlatformScope): Promise<SystemAlert[]> {
  const rows = await queryRows<{ kind: string; queue: string | null; n: number | string }>(sql`
    select 'failed_jobs' as kind, queue, count(*) as n from jobs where failed_at is not null group by queue
    union all
    select 'webhook_backlog', null, count(*) from webhook_events
    where processed_at is null and received_at < now() - make_interval(mins => ${WEBHOOK_BACKLOG_ALERT_MINUTES})`);
  const alerts: SystemAlert[] = [];
  for (const row of rows) {
    const n = Number(row.n);
    if (!n) continue;
    if (row.kind === "failed_jobs")
      alerts.push({ id: `failed:${row.queue}`, level: "error", text: `${n} failed ${n === 1 ? "job" : "jobs"} in the ${row.queue} queue` });
    else
      alerts.push({
        id: "webhook-backlog",
        level: "warning",
        text: `${n} webhook ${n === 1 ? "delivery has" : "deliveries have"} waited over ${WEBHOOK_BACKLOG_ALERT_MINUTES} minutes`,
      });
  }
  return alerts;
}
