import { sql } from "drizzle-orm";
import { db } from "../db/client";
import { queryRows } from "../db/query";

export interface RecurringJob {
  /** Stable name; also the unique key of the job it enqueues. */
  name: string;
  queue: string;
  everySeconds: number;
}

const schedules = new Map<string, RecurringJob>();

/** Declares a recurring job (handlers.ts does, at start-up); scheduleRecurringJobs stores it. */
export function registerRecurringJob(job: RecurringJob) {
  if (!Number.isInteger(job.everySeconds) || job.everySeconds < 1)
    throw new Error(`Recurring job ${job.name}: everySeconds must be a whole number >= 1`);
  schedules.set(job.name, job);
}

export function registeredRecurringJobs() {
  return [...schedules.values()];
}

/**
 * Stores this process's schedules. A new one first runs at once; an existing one keeps its next run
 * (a restart does not run housekeeping again), moved earlier if its period was shortened.
 */
export async function scheduleRecurringJobs() {
  const jobs = registeredRecurringJobs();
  if (!jobs.length) return;
  await db().execute(sql`
    insert into recurring_jobs (name, queue, every_seconds, next_run_at)
    select name, queue, every_seconds, now()
    from unnest(${sql.param(jobs.map((j) => j.name))}::text[], ${sql.param(jobs.map((j) => j.queue))}::text[], ${sql.param(jobs.map((j) => j.everySeconds))}::int[])
      as s(name, queue, every_seconds)
    on conflict (name) do update set
      queue = excluded.queue,
      every_seconds = excluded.every_seconds,
      next_run_at = least(recurring_jobs.next_run_at, coalesce(recurring_jobs.last_enqueued_at, now()) + make_interval(secs => excluded.every_seconds))`);
}

/**
 * Enqueues every recurring job whose time has come, exactly once across instances: the update takes
 * the schedule's row lock and moves next_run_at on, so an instance that waited on the lock finds the
 * row no longer due; the insert is in the same statement, so the move and the job commit together.
 * A job still pending from the last period (unique key) is not doubled. Answers the names enqueued.
 */
export async function enqueueDueRecurringJobs(): Promise<string[]> {
  const result = await queryRows<{ name: string }>(
    db(),
    sql`
    with due as (
      update recurring_jobs
      -- On time: keep the cadence. Overdue by a period or more (every instance was down): one run now, the next a period on.
      set next_run_at = case when next_run_at + make_interval(secs => every_seconds) > now()
                             then next_run_at + make_interval(secs => every_seconds)
                             else now() + make_interval(secs => every_seconds) end,
          last_enqueued_at = now()
      where next_run_at <= now()
      returning name, queue
    ), enqueued as (
      insert into jobs (queue, payload, unique_key)
      select queue, jsonb_build_object('recurring', name), 'recurring:' || name from due
      on conflict (unique_key) where finished_at is null and failed_at is null do nothing
      returning payload->>'recurring' as name
    )
    select name from enqueued`,
  );
  return result.map((row) => row.name);
}
