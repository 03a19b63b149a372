import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { METRIC } from "./monitor";

import { SYSTEM_RANGES, type SystemRange } from "~/lib/system-ranges";
import { dateTimeFormat, formatDateWords, intlLocale } from "~/lib/intl";

export { DEFAULT_RANGE, parseRange, SYSTEM_RANGES, type SystemRange } from "~/lib/system-ranges";

export interface Point {
  label: string;
  value: number;
}

export interface InstanceSeries {
  id: string;
  hostname: string;
  pid: string;
  cpu: Point[];
  memoryMb: Point[];
  loopDelay: Point[];
}

export interface SystemSeries {
  range: SystemRange;
  requests: Point[];
  serverErrors: Point[];
  errorRate: Point[];
  jobsReady: Point[];
  oldestJob: Point[];
  webhooksReceived: Point[];
  webhookLag: Point[];
  instances: InstanceSeries[];
  /** Whether any sample exists in the range at all. */
  empty: boolean;
}

/** A bucket's time as the chart labels it, in the request's language (Nairobi's clock). */
function bucketLabel(range: SystemRange, epochSeconds: number) {
  const at = new Date(epochSeconds * 1000);
  const locale = intlLocale();
  const zone = { timeZone: "Africa/Nairobi" } as const;
  const clock = dateTimeFormat(locale, { ...zone, hour: "2-digit", minute: "2-digit", hour12: false });
  if (range === "1h" || range === "24h") return clock.format(at);
  if (range === "7d") return `${dateTimeFormat(locale, { ...zone, weekday: "short", day: "numeric" }).format(at)} ${clock.format(at)}`;
  return formatDateWords(dateTimeFormat(locale, { ...zone, day: "numeric", month: "short" }), at);
}

/** metric_samples over the range in its buckets: the platform's charts and each instance's resources. */
export async function systemSeries(range: SystemRange): Promise<SystemSeries> {
  const { hours, bucketSeconds } = SYSTEM_RANGES[range];
  const count = Math.round((hours * 3600) / bucketSeconds);
  const last = Math.floor(Date.now() / 1000 / bucketSeconds);
  const firstBucket = last - count + 1;
  const buckets = Array.from({ length: count }, (_, i) => firstBucket + i);
  const rows = await queryRows<{
    name: string;
    instance_id: string;
    bucket: number | string;
    total: number;
    peak: number;
    mean: number;
  }>(
    db(),
    bucketSeconds % 3600 === 0
      ? // Whole hours: from the hourly sums (metric_hours), the chart's buckets only (those start after now() - hours).
        sql`
    select name, instance_id, floor(date_part('epoch', hour) / ${bucketSeconds})::bigint as bucket,
           sum(total)::float8 as total, max(peak)::float8 as peak, (sum(total) / sum(samples))::float8 as mean
    from metric_hours
    where hour >= to_timestamp(${firstBucket * bucketSeconds}::float8)
    group by name, instance_id, 3`
      : sql`
    select name, instance_id, floor(date_part('epoch', at) / ${bucketSeconds})::bigint as bucket,
           sum(value)::float8 as total, max(value)::float8 as peak, avg(value)::float8 as mean
    from metric_samples
    where at > now() - make_interval(hours => ${hours})
    group by name, instance_id, 3`,
  );
  const labels = buckets.map((b) => bucketLabel(range, b * bucketSeconds));

  // name -> instance -> bucket -> row
  const index = new Map<string, Map<string, Map<number, (typeof rows)[number]>>>();
  for (const row of rows) {
    const byInstance = index.get(row.name) ?? new Map<string, Map<number, (typeof rows)[number]>>();
    index.set(row.name, byInstance);
    const byBucket = byInstance.get(row.instance_id) ?? new Map<number, (typeof rows)[number]>();
    byInstance.set(row.instance_id, byBucket);
    byBucket.set(Number(row.bucket), row);
  }
  type Pick = "total" | "peak" | "mean";
  const series = (name: string, instance: string | "*", pick: Pick, scale = 1): Point[] =>
    buckets.map((b, i) => {
      const byInstance = index.get(name);
      let value = 0;
      if (byInstance)
        for (const [id, byBucket] of byInstance) {
          // "*": every instance's own samples added up (requests); otherwise one instance, or '' the platform.
          if (instance === "*" ? id === "" : id !== instance) continue;
          const row = byBucket.get(b);
          if (row) value += Number(row[pick]);
        }
      return { label: labels[i]!, value: Math.round((value / scale) * 10) / 10 };
    });

  const requests = series(METRIC.requests, "*", "total");
  const serverErrors = series(METRIC.serverErrors, "*", "total");
  const instanceIds = [...new Set(rows.filter((r) => r.instance_id !== "").map((r) => r.instance_id))].sort();
  return {
    range,
    requests,
    serverErrors,
    errorRate: requests.map((p, i) => ({
      label: p.label,
      value: p.value ? Math.round((serverErrors[i]!.value / p.value) * 1000) / 10 : 0,
    })),
    jobsReady: series(METRIC.jobsReady, "", "peak"),
    oldestJob: series(METRIC.oldestJob, "", "peak"),
    webhooksReceived: series(METRIC.webhooksReceived, "", "total"),
    webhookLag: series(METRIC.webhookLag, "", "peak"),
    instances: instanceIds.map((id) => {
      const [hostname = id, pid = ""] = id.split(":");
      return {
        id,
        hostname,
        pid,
        cpu: series(METRIC.cpu, id, "mean"),
        memoryMb: series(METRIC.rss, id, "mean", 1024 * 1024),
        loopDelay: series(METRIC.loopDelay, id, "peak"),
      };
    }),
    empty: rows.length === 0,
  };
}
