import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, smallint, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * The job queue: rows are claimed with FOR UPDATE SKIP LOCKED under a lease (lockedUntil), so any
 * number of workers in any number of processes share it, and a crashed worker's jobs come back.
 * A job is pending until it finishes (finishedAt) or gives up (failedAt); both kinds of row are kept
 * for a while for inspection and removed by housekeeping (decision 015).
 */
export const jobs = pgTable(
  "jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    queue: text("queue").notNull(),
    payload: jsonb("payload").notNull(),
    /** Higher runs first among a queue's ready jobs; then the earliest run_at. */
    priority: smallint("priority").notNull().default(0),
    runAt: timestamp("run_at", { withTimezone: true }).notNull().defaultNow(),
    /** At most one pending job per key: enqueueing a key that is already waiting adds nothing. */
    uniqueKey: text("unique_key"),
    attempts: integer("attempts").notNull().default(0),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lastError: text("last_error"),
    /** Set when the job gave up; such rows are never claimed again. */
    failedAt: timestamp("failed_at", { withTimezone: true }),
    /** Set when the job's work committed. */
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("jobs_pending_idx")
      .on(t.queue, t.priority.desc(), t.runAt, t.id)
      .where(sql`finished_at is null and failed_at is null`),
    uniqueIndex("jobs_pending_unique_key_idx")
      .on(t.uniqueKey)
      .where(sql`finished_at is null and failed_at is null`),
    index("jobs_finished_idx")
      .on(t.finishedAt)
      .where(sql`finished_at is not null`),
    // The admin console's bell: failed jobs, newest first.
    index("jobs_failed_idx")
      .on(t.failedAt.desc())
      .where(sql`failed_at is not null`),
  ],
);

/**
 * Recurring jobs: each row enqueues one job on `queue` every `everySeconds`. Whichever instance
 * first finds `nextRunAt` passed moves it on and enqueues, in one statement, so the job exists
 * once per period however many instances run.
 */
export const recurringJobs = pgTable("recurring_jobs", {
  name: text("name").primaryKey(),
  queue: text("queue").notNull(),
  everySeconds: integer("every_seconds").notNull(),
  nextRunAt: timestamp("next_run_at", { withTimezone: true }).notNull(),
  lastEnqueuedAt: timestamp("last_enqueued_at", { withTimezone: true }),
});
