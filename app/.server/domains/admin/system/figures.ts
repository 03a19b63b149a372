import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";

/** Background work ready to run: unfinished, not given up, due, and not held by a worker's lease. */
export const READY_JOB = sql`finished_at is null and failed_at is null and run_at <= now() and (locked_until is null or locked_until < now())`;

export interface QueueFigures {
  /** Jobs ready to run now. */
  jobsReady: number;
  /** How long the oldest ready job has waited past its time, in seconds (0 when none waits). */
  oldestReadySeconds: number;
  /** Webhook deliveries received in the last minute. */
  webhooksLastMinute: number;
  /** Webhook deliveries stored and not yet processed. */
  webhookBacklog: number;
  /** How long the oldest unprocessed delivery has waited, in seconds (0 when none waits). */
  webhookLagSeconds: number;
}

/** The job queue's figures alone, in a statement of their own (the System tab's "Job queue" card). */
export async function jobFigures(): Promise<Pick<QueueFigures, "jobsReady" | "oldestReadySeconds">> {
  const [row] = await queryRows<{ ready: number; oldest: number | null }>(
    db(),
    sql`
    select count(*)::int as ready, extract(epoch from now() - min(run_at))::float8 as oldest from jobs where ${READY_JOB}`,
  );
  return { jobsReady: Number(row?.ready ?? 0), oldestReadySeconds: Math.max(0, Math.round(Number(row?.oldest ?? 0))) };
}

/** The webhook intake's figures alone, in a statement of their own (the System tab's "Webhook intake" card). */
export async function webhookFigures(): Promise<Pick<QueueFigures, "webhooksLastMinute" | "webhookBacklog" | "webhookLagSeconds">> {
  const [row] = await queryRows<{ received: number; backlog: number; lag: number | null }>(
    db(),
    sql`
    select
      (select count(*) from webhook_events where received_at > now() - interval '1 minute')::int as received,
      (select count(*) from webhook_events where processed_at is null)::int as backlog,
      (select extract(epoch from now() - min(received_at))::float8 from webhook_events where processed_at is null) as lag`,
  );
  return {
    webhooksLastMinute: Number(row?.received ?? 0),
    webhookBacklog: Number(row?.backlog ?? 0),
    webhookLagSeconds: Math.max(0, Math.round(Number(row?.lag ?? 0))),
  };
}

/**
 * The job queue and the webhook intake in one statement, from the partial indexes over unfinished
 * rows: the platform sampler and /metrics read it (the System tab's cards time each half alone).
 */
export async function queueFigures(): Promise<QueueFigures> {
  const [row] = await queryRows<{ ready: number; oldest: number | null; received: number; backlog: number; lag: number | null }>(
    db(),
    sql`
    select
      (select count(*) from jobs where ${READY_JOB})::int as ready,
      (select extract(epoch from now() - min(run_at))::float8 from jobs where ${READY_JOB}) as oldest,
      (select count(*) from webhook_events where received_at > now() - interval '1 minute')::int as received,
      (select count(*) from webhook_events where processed_at is null)::int as backlog,
      (select extract(epoch from now() - min(received_at))::float8 from webhook_events where processed_at is null) as lag`,
  );
  return {
    jobsReady: Number(row?.ready ?? 0),
    oldestReadySeconds: Math.max(0, Math.round(Number(row?.oldest ?? 0))),
    webhooksLastMinute: Number(row?.received ?? 0),
    webhookBacklog: Number(row?.backlog ?? 0),
    webhookLagSeconds: Math.max(0, Math.round(Number(row?.lag ?? 0))),
  };
}
