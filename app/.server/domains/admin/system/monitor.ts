import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { countAffected, queryRows } from "../../../infrastructure/db/query";
import { log } from "../../../infrastructure/log";
import { heartbeatResources, instanceIdentity, takeMinuteSample } from "../../../infrastructure/metrics/instance";
import { queueFigures } from "./figures";
import { evaluateAlertRules } from "./alerts";

/**
 * The System tab's data (issue 19). Every instance writes its heartbeat every 15 s and samples its
 * own resources and requests every minute (timers in the process: they describe this process).
 * One instance a minute, through a recurring job that runs once across instances, samples the
 * platform-wide figures under instance '' and evaluates the alert rules.
 */
export const HEARTBEAT_EVERY_MS = 15_000;
export const SAMPLE_EVERY_MS = 60_000;
export const SYSTEM_MONITOR_QUEUE = "system.monitor";
export const SYSTEM_MONITOR_EVERY_SECONDS = 60;
/** metric_samples are kept this long (housekeeping); heartbeats of instances unseen this long are forgotten. */
export const METRIC_RETENTION_DAYS = 30;
export const HEARTBEAT_RETENTION_DAYS = 7;

/** Metric names in metric_samples: per instance, and platform-wide (instance ''). */
export const METRIC = {
  cpu: "cpu_percent",
  rss: "rss_bytes",
  heap: "heap_used_bytes",
  loopDelay: "event_loop_p99_ms",
  requests: "http_requests",
  serverErrors: "http_5xx",
  jobsReady: "jobs_ready",
  oldestJob: "jobs_oldest_ready_s",
  webhooksReceived: "webhooks_received",
  webhookBacklog: "webhooks_backlog",
  webhookLag: "webhooks_lag_s",
  errorRate: "error_rate_percent",
} as const;

/** Writes (or refreshes) this instance's heartbeat with its latest resources. */
export async function writeHeartbeat() {
  const me = instanceIdentity();
  const resources = heartbeatResources();
  await db().execute(sql`
    insert into instance_heartbeats (instance_id, hostname, pid, version, started_at, last_seen_at, resources)
    values (${me.id}, ${me.hostname}, ${me.pid}, ${me.version}, ${me.startedAt.toISOString()}::timestamptz, now(), ${JSON.stringify(resources)}::jsonb)
    on conflict (instance_id) do update set last_seen_at = now(), resources = excluded.resources`);
}

/** A clean shutdown removes the heartbeat: an instance that stopped on purpose is not "missing". */
export async function removeHeartbeat() {
  await db().execute(sql`delete from instance_heartbeats where instance_id = ${instanceIdentity().id}`);
}

async function insertSamples(instanceId: string, values: Record<string, number>) {
  const names = Object.keys(values);
  await db().execute(sql`
    insert into metric_samples (name, instance_id, at, value)
    select name, ${instanceId}, now(), value from unnest(${sql.param(names)}::text[], ${sql.param(names.map((n) => values[n]!))}::float8[]) as s(name, value)
    on conflict do nothing`);
}

/** This instance's minute: CPU, memory, event-loop delay, requests and 5xx answered since the last sample. */
export async function writeInstanceSamples() {
  const sample = takeMinuteSample();
  await insertSamples(instanceIdentity().id, {
    [METRIC.cpu]: sample.cpuPercent,
    [METRIC.rss]: sample.rssBytes,
    [METRIC.heap]: sample.heapUsedBytes,
    [METRIC.loopDelay]: sample.eventLoopP99Ms,
    [METRIC.requests]: sample.requests,
    [METRIC.serverErrors]: sample.serverErrors,
  });
}

/**
 * The platform's minute (instance ''): queue depth and oldest ready job, webhook intake and lag, and
 * the 5xx share of the requests every instance sampled in the last minute.
 */
export async function writePlatformSamples() {
  const [figures, [traffic]] = await Promise.all([
    queueFigures(),
    queryRows<{ requests: number | null; errors: number | null }>(
      db(),
      sql`
      select sum(value) filter (where name = ${METRIC.requests}) as requests, sum(value) filter (where name = ${METRIC.serverErrors}) as errors
      from metric_samples where name in (${METRIC.requests}, ${METRIC.serverErrors}) and instance_id <> '' and at > now() - interval '1 minute'`,
    ),
  ]);
  const requests = Number(traffic?.requests ?? 0);
  const errors = Number(traffic?.errors ?? 0);
  await insertSamples("", {
    [METRIC.jobsReady]: figures.jobsReady,
    [METRIC.oldestJob]: figures.oldestReadySeconds,
    [METRIC.webhooksReceived]: figures.webhooksLastMinute,
    [METRIC.webhookBacklog]: figures.webhookBacklog,
    [METRIC.webhookLag]: figures.webhookLagSeconds,
    [METRIC.errorRate]: requests ? Math.round((errors / requests) * 1000) / 10 : 0,
  });
}

/** The recurring job's run: the platform's samples, then the alert rules. */
export async function runSystemMonitor() {
  await writePlatformSamples();
  return evaluateAlertRules();
}

/** Samples and heartbeats past their retention (housekeeping). Answers the rows removed. */
export async function pruneSystemData() {
  const samples = await countAffected(
    db(),
    sql`delete from metric_samples where at < now() - make_interval(days => ${METRIC_RETENTION_DAYS})`,
  );
  await db().execute(sql`delete from instance_heartbeats where last_seen_at < now() - make_interval(days => ${HEARTBEAT_RETENTION_DAYS})`);
  return samples;
}

/**
 * Starts this instance's heartbeat (now, then every 15 s) and its minute's samples. A failed write
 * (the database away a moment) is logged and tried again on the next tick. Answers the stop function,
 * which also removes the heartbeat.
 */
export function startInstanceMonitor() {
  const beat = () => writeHeartbeat().catch((error: unknown) => log().warn({ err: error }, "could not write the instance heartbeat"));
  const sample = () =>
    writeInstanceSamples().catch((error: unknown) => log().warn({ err: error }, "could not write the instance's samples"));
  void beat();
  const heartbeat = setInterval(beat, HEARTBEAT_EVERY_MS);
  const minute = setInterval(sample, SAMPLE_EVERY_MS);
  heartbeat.unref();
  minute.unref();
  return async () => {
    clearInterval(heartbeat);
    clearInterval(minute);
    await removeHeartbeat().catch(() => undefined);
  };
}
