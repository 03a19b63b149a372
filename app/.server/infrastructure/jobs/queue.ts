import { sql } from "drizzle-orm";
import { db, type Executor } from "../db/client";
import { queryRows } from "../db/query";

export interface Job<Payload = unknown> {
  id: number;
  queue: string;
  payload: Payload;
  attempts: number;
}

/** A job not finished and not given up: waiting, scheduled or running. */
const PENDING = sql`finished_at is null and failed_at is null`;

export interface EnqueueOptions {
  /** Join the caller's transaction, so the job exists exactly when the caller's writes do. */
  executor?: Executor;
  /** Run no earlier than this many milliseconds from now (rounded to seconds)... */
  delayMs?: number;
  /** ...or no earlier than this moment. */
  runAt?: Date;
  /** Higher runs first among the queue's ready jobs (default 0; -32768..32767). */
  priority?: number;
  /**
   * One pending job per key: while a job with this key waits or runs, enqueueing the key again adds
   * nothing (enqueueJob answers null). Use it for work that is about a thing, not an event.
   */
  uniqueKey?: string;
}

/** Adds a job and answers its id, or null where `uniqueKey` already has a pending job. */
export async function enqueueJob(queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<number | null> {
  const executor = options.executor ?? db();
  const priority = Math.max(-32768, Math.min(32767, Math.round(options.priority ?? 0)));
  const runAt = options.runAt
    ? sql`${options.runAt.toISOString()}::timestamptz`
    : sql`now() + make_interval(secs => ${Math.max(0, Math.round((options.delayMs ?? 0) / 1000))})`;
  const result = await queryRows<{ id: number | string }>(
    executor,
    sql`
    insert into jobs (queue, payload, run_at, priority, unique_key)
    values (${queue}, ${JSON.stringify(payload)}::jsonb, ${runAt}, ${priority}, ${options.uniqueKey ?? null})
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing
    returning id`,
  );
  const row = result[0];
  return row ? Number(row.id) : null;
}

/**
 * Adds many jobs of `queue` in one statement, each with its own unique key (see EnqueueOptions):
 * a key with a job pending adds nothing. In the caller's transaction; run now or after `delayMs`.
 */
export async function enqueueKeyedJobs(
  executor: Executor,
  queue: string,
  jobs: { payload: unknown; uniqueKey: string }[],
  options: Pick<EnqueueOptions, "delayMs"> = {},
) {
  if (!jobs.length) return;
  await executor.execute(sql`
    insert into jobs (queue, payload, run_at, unique_key)
    select ${queue}, j.payload, now() + make_interval(secs => ${Math.max(0, Math.round((options.delayMs ?? 0) / 1000))}), j.unique_key
    from unnest(${sql.param(jobs.map((j) => JSON.stringify(j.payload)))}::jsonb[], ${sql.param(jobs.map((j) => j.uniqueKey))}::text[])
      as j(payload, unique_key)
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing`);
}

/**
 * Claims up to `limit` ready jobs of `queue` under a lease, the highest priority and then the oldest
 * first. SKIP LOCKED lets any number of workers, in any number of processes, claim disjoint jobs; a
 * worker that dies lets its lease run out and the jobs come back to the others.
 */
export async function claimJobs<Payload>(queue: string, limit: number, leaseMs: number): Promise<Job<Payload>[]> {
  const result = await queryRows<{ id: number | string; queue: string; payload: Payload; attempts: number }>(
    db(),
    claimStatement(queue, limit, leaseMs),
  );
  return result.map((row) => ({ ...row, id: Number(row.id) }));
}

/** claimJobs' statement, on its own so a test can EXPLAIN it (it must read jobs_pending_idx, never sort a backlog). */
export function claimStatement(queue: string, limit: number, leaseMs: number) {
  return sql`
    update jobs set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1
    where id in (
      select id from jobs
      where queue = ${queue} and ${PENDING} and run_at <= now() and (locked_until is null or locked_until < now())
      -- As jobs_pending_idx is built (drizzle's desc() is "desc nulls last"): a plain "desc" is nulls
      -- first, which that index cannot give, and every claim would sort the queue's whole backlog.
      order by priority desc nulls last, run_at, id
      limit ${limit}
      for update skip locked
    )
    returning id, queue, payload, attempts`;
}

/** Which of `queues` have a job ready to claim now: one cheap statement for an idle worker's poll. */
export async function readyQueues(queues: string[]): Promise<string[]> {
  if (!queues.length) return [];
  const result = await queryRows<{ name: string }>(
    db(),
    sql`
    select q.name from unnest(${sql.param(queues)}::text[]) as q(name)
    where exists (
      select 1 from jobs where queue = q.name and ${PENDING} and run_at <= now() and (locked_until is null or locked_until < now())
    )`,
  );
  return result.map((row) => row.name);
}

/** Marks jobs finished, inside the transaction that did their work; housekeeping removes them later. */
export async function completeJobs(executor: Executor, ids: number[]) {
  if (ids.length)
    await executor.execute(sql`update jobs set finished_at = now(), locked_until = null where id = any(${sql.param(ids)}::bigint[])`);
}

/**
 * Thrown by a job's work that an outside system asked to wait (a 429 with `retry-after`): the job
 * runs again after that wait rather than the usual backoff.
 */
export class RetryLater extends Error {
  constructor(
    readonly afterMs: number,
    message = "asked to wait",
  ) {
    super(message);
    this.name = "RetryLater";
  }
}

/** Puts a failed job back with exponential backoff (or the wait asked for), or parks it as failed after `maxAttempts`. */
export async function releaseFailedJob(job: Job, error: unknown, maxAttempts: number) {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
  if (job.attempts >= maxAttempts) {
    await db().execute(sql`update jobs set failed_at = now(), locked_until = null, last_error = ${message} where id = ${job.id}`);
    return "failed" as const;
  }
  const delaySeconds =
    error instanceof RetryLater ? Math.min(Math.max(1, Math.ceil(error.afterMs / 1000)), 3600) : Math.min(2 ** job.attempts, 3600);
  await db().execute(
    sql`update jobs set locked_until = null, last_error = ${message}, run_at = now() + make_interval(secs => ${delaySeconds}) where id = ${job.id}`,
  );
  return "retrying" as const;
}

/**
 * Puts claimed jobs back as they were before the claim (lease off, attempt not counted): their work
 * did not run because the database went away (decision 011). Matching on attempts leaves alone a
 * job whose lease ran out and which another worker claimed since.
 */
export async function releaseClaims(claims: { id: number; attempts: number }[]) {
  if (!claims.length) return;
  await db().execute(sql`
    update jobs set locked_until = null, attempts = greatest(jobs.attempts - 1, 0)
    from unnest(${sql.param(claims.map((c) => c.id))}::bigint[], ${sql.param(claims.map((c) => c.attempts))}::int[]) as c(job_id, claimed_attempts)
    where jobs.id = c.job_id and jobs.attempts = c.claimed_attempts and jobs.failed_at is null and jobs.finished_at is null`);
}
