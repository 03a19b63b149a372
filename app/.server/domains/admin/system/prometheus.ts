import { createHash, timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import { Gauge, Registry } from "prom-client";
import { env } from "../../../infrastructure/config/env";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { processState } from "../../../infrastructure/process-state";
import { instanceRegistry } from "../../../infrastructure/metrics/instance";
import { pendingUsageRows } from "../../billing";
import { queueFigures } from "./figures";

/**
 * GET /metrics for Prometheus: this instance's process metrics and request counters (its own
 * registry), and the platform's figures read from the database at scrape time (the same on every
 * instance: scrape one, or aggregate with max()).
 *
 * Access: `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time. Without METRICS_TOKEN
 * configured nobody can scrape (401 like a wrong token), so the endpoint says nothing of itself and
 * the route-permission table holds for every configuration.
 */
export function metricsTokenMatches(authorization: string | null): boolean {
  const expected = env().METRICS_TOKEN;
  if (!expected) return false;
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (!presented) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

const platform = processState("admin-system-prometheus", () => {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });
  return {
    registry,
    jobsReady: gauge("jumbe_jobs_ready", "Background jobs ready to run now, across the platform."),
    oldestJob: gauge("jumbe_jobs_oldest_ready_seconds", "How long the oldest ready job has waited past its time, in seconds."),
    webhookBacklog: gauge("jumbe_webhook_backlog", "Webhook deliveries stored and not yet processed."),
    webhookLag: gauge("jumbe_webhook_lag_seconds", "How long the oldest unprocessed webhook delivery has waited, in seconds."),
    webhooksReceived: gauge("jumbe_webhooks_received_last_minute", "Webhook deliveries received in the last minute."),
    usagePending: gauge(
      "jumbe_usage_pending",
      "Charges counted and not yet folded into the daily usage rollup (billing.usage-fold runs every 2 s): a figure that keeps growing means the fold has stopped.",
    ),
    alerts: gauge("jumbe_alerts_open", "Open system alerts, by level.", ["level"]),
  };
});

/** The scrape's text: the platform gauges read now, then this instance's metrics. */
export async function prometheusText() {
  const [figures, usagePending, alerts] = await Promise.all([
    queueFigures(),
    pendingUsageRows(),
    queryRows<{ level: string; n: number }>(
      db(),
      sql`select level, count(*)::int as n from system_alerts where resolved_at is null group by level`,
    ),
  ]);
  platform.jobsReady.set(figures.jobsReady);
  platform.oldestJob.set(figures.oldestReadySeconds);
  platform.webhookBacklog.set(figures.webhookBacklog);
  platform.webhookLag.set(figures.webhookLagSeconds);
  platform.webhooksReceived.set(figures.webhooksLastMinute);
  platform.usagePending.set(usagePending);
  for (const level of ["warning", "error"]) platform.alerts.set({ level }, Number(alerts.find((a) => a.level === level)?.n ?? 0));
  const merged = Registry.merge([instanceRegistry(), platform.registry]);
  return { contentType: instanceRegistry().contentType, text: await merged.metrics() };
}
