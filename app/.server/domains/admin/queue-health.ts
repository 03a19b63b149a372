import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { PlatformScope } from "../../infrastructure/db/scope";

/** Background work ready, scheduled, running, parked and finished in the last day, and webhook deliveries stored and processed. */
export async function queueHealth(_scope: PlatformScope) {
  const [jobs, events] = await Promise.all([
    queryRows<{ queue: string; ready: number; scheduled: number; running: number; failed: number; finished: number }>(
      db(),
      sql`
      select queue,
        count(*) filter (where finished_at is null and failed_at is null and run_at <= now() and (locked_until is null or locked_until < now()))::int as ready,
        count(*) filter (where finished_at is null and failed_at is null and run_at > now() and (locked_until is null or locked_until < now()))::int as scheduled,
        count(*) filter (where finished_at is null and failed_at is null and locked_until >= now())::int as running,
        count(*) filter (where failed_at is not null)::int as failed,
        count(*) filter (where finished_at > now() - interval '1 day')::int as finished
      from jobs group by queue order by queue`,
    ),
    queryRows<{ received: number; unprocessed: number; oldest_unprocessed: string | null }>(
      db(),
      sql`
      select count(*)::int as received, count(*) filter (where processed_at is null)::int as unprocessed,
             min(received_at) filter (where processed_at is null) as oldest_unprocessed
      from webhook_events`,
    ),
  ]);
  const e = events[0];
  return {
    jobs: jobs.map((j) => ({
      queue: j.queue,
      ready: Number(j.ready),
      scheduled: Number(j.scheduled),
      running: Number(j.running),
      failed: Number(j.failed),
      finishedLastDay: Number(j.finished),
    })),
    webhooks: {
      received: Number(e?.received ?? 0),
      unprocessed: Number(e?.unprocessed ?? 0),
      oldestUnprocessedAt: e?.oldest_unprocessed ? new Date(e.oldest_unprocessed).toISOString() : null,
    },
  };
}
