import { db, type Executor } from "../db/client";
import { databaseIsDown, isDatabaseUnavailableError, noteDatabaseError } from "../db/availability";
import { createIdler } from "./idle";
import { log } from "../log";
import { processState } from "../process-state";
import { claimJobs, completeJobs, readyQueues, releaseClaims, releaseFailedJob, type Job } from "./queue";
import { enqueueDueRecurringJobs, scheduleRecurringJobs } from "./recurring";

export interface JobHandler<Payload = unknown> {
  queue: string;
  /** Jobs claimed together and handled in one transaction. */
  batchSize: number;
  maxAttempts: number;
  /**
   * Batches of this queue one process runs at once (default 1), capped by JOB_WORKERS. A slow
   * queue (mail, Graph calls) thus never holds up another (webhooks).
   */
  concurrency?: number;
  /** Milliseconds a claim lasts before another worker may take the job (default 60 s). */
  leaseMs?: number;
  /**
   * false: the work calls outside systems and must not hold a transaction open meanwhile (on PGlite
   * that would stall every other query); it runs on the database and must be idempotent.
   */
  transactional?: boolean;
  /**
   * Its work queues more jobs (a webhook's messages queue their automations): this process's workers
   * are woken once a batch is committed, so those jobs start at once instead of at the next poll.
   */
  queuesMore?: boolean;
  /** Does the work of `jobs` inside `tx`; the worker deletes them in the same transaction. */
  run(jobs: Job<Payload>[], tx: Executor): Promise<void>;
}

/** Per process (kept across development reloads): handlers by queue, idle workers, claims to hand back. */
const { handlers, wakers, unreleased } = processState("jobs", () => ({
  handlers: new Map<string, JobHandler<never>>(),
  wakers: new Set<() => void>(),
  /** Claims this process could not hand back while the database was unreachable: id to attempts. */
  unreleased: new Map<number, number>(),
}));

/**
 * The dispatcher's rounds (one readiness poll of the database each) are at least this far apart:
 * under 1,000 webhooks a second every ingest commit woke it, some 300 polls a second that found
 * nothing new (decision 094). A job queued right after a round waits at most this long more.
 */
export const ROUND_GAP_MS = 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Milliseconds a worker waits after its `failures`-th consecutive failure to reach the database:
 * 0.5 s doubling to at most 15 s (decision 011). The database coming back wakes it earlier.
 */
export function outageBackoffMs(failures: number) {
  return Math.min(500 * 2 ** Math.max(0, failures - 1), 15_000);
}

export function registerJobHandler<Payload>(handler: JobHandler<Payload>) {
  handlers.set(handler.queue, handler);
}

/** Tells this process's idle workers there is work (other processes find it by polling). */
export function wakeWorkers() {
  for (const wake of wakers) wake();
}

/** Claims and runs one batch of `queue`; returns how many jobs it handled. Logs one line per job. */
export async function runJobBatch(queue: string): Promise<number> {
  const handler = handlers.get(queue) as JobHandler<unknown> | undefined;
  if (!handler) throw new Error(`No handler for job queue ${queue}`);
  const jobs = await claimJobs<unknown>(queue, handler.batchSize, handler.leaseMs ?? 60_000);
  if (!jobs.length) return 0;
  const started = performance.now();
  try {
    await runInTransaction(handler, jobs);
    if (handler.queuesMore) wakeWorkers();
    logJobs(jobs, "done", started);
  } catch (error) {
    if (isDatabaseUnavailableError(error)) return handBack(jobs, error);
    if (jobs.length === 1) {
      const outcome = await releaseFailedJob(jobs[0]!, error, handler.maxAttempts);
      logJobs(jobs, outcome, started, error);
      return 1;
    }
    // One bad job must not hold back the others: run the batch again one job at a time.
    log().warn({ queue, jobs: jobs.length, err: error }, "job batch failed; retrying its jobs one by one");
    for (const job of jobs) {
      const single = performance.now();
      try {
        await runInTransaction(handler, [job]);
        logJobs([job], "done", single);
      } catch (failure) {
        if (isDatabaseUnavailableError(failure)) return handBack(jobs.slice(jobs.indexOf(job)), failure);
        const outcome = await releaseFailedJob(job, failure, handler.maxAttempts);
        logJobs([job], outcome, single, failure);
      }
    }
  }
  return jobs.length;
}

/**
 * One log line per job: queue, id, attempt, outcome (done, retrying, failed) and the milliseconds
 * of the batch it ran in. Failures log at error level with the error.
 */
function logJobs(jobs: Job[], outcome: "done" | "retrying" | "failed", started: number, error?: unknown) {
  const ms = Math.round((performance.now() - started) * 10) / 10;
  for (const job of jobs) {
    const line = { queue: job.queue, jobId: job.id, attempt: job.attempts, outcome, ms, batch: jobs.length };
    if (outcome === "done") log().info(line, "job");
    else log().error({ ...line, err: error }, "job");
  }
}

/**
 * The database went away under a batch: its jobs go back to the queue as they were, the attempt not
 * counted (an outage is no fault of the job's). If even that cannot be written, they are handed back
 * once the database answers again, rather than after their lease. The error goes on to the worker's
 * loop, which backs off.
 */
async function handBack(jobs: Job[], error: unknown): Promise<never> {
  for (const job of jobs) unreleased.set(job.id, job.attempts);
  await releaseUnreleased();
  throw error;
}

/** Hands back the claims noted by handBack; a claim taken again since (attempts moved on) is left alone. */
async function releaseUnreleased() {
  if (!unreleased.size) return;
  const claims = [...unreleased];
  try {
    await releaseClaims(claims.map(([id, attempts]) => ({ id, attempts })));
  } catch (error) {
    if (isDatabaseUnavailableError(error)) throw error;
    // Anything else: their leases run out and they come back that way.
    log().error({ err: error, jobs: claims.length }, "could not hand back claimed jobs");
  }
  for (const [id] of claims) unreleased.delete(id);
}

async function runInTransaction(handler: JobHandler<unknown>, jobs: Job[]) {
  if (handler.transactional === false) {
    await handler.run(jobs, db());
    await completeJobs(
      db(),
      jobs.map((j) => j.id),
    );
    return;
  }
  await db().transaction(async (tx) => {
    await handler.run(jobs, tx);
    await completeJobs(
      tx,
      jobs.map((j) => j.id),
    );
  });
}

/** Runs every registered queue (but `except`) until there is nothing left (tests and the CLI drain this way). */
export async function drainJobs(maxRounds = 1000, options: { except?: string[] } = {}) {
  let total = 0;
  for (let round = 0; round < maxRounds; round++) {
    let handled = 0;
    for (const queue of handlers.keys()) if (!options.except?.includes(queue)) handled += await runJobBatch(queue);
    total += handled;
    if (!handled) break;
  }
  return total;
}

/**
 * Starts this process's job workers. One dispatcher loop asks the database which queues have ready
 * work (one statement per poll whatever the number of queues), enqueues recurring jobs that are due,
 * and runs each ready queue with up to its handler's `concurrency` batches at once, capped by
 * `maxConcurrency` (JOB_WORKERS; 0 starts nothing). wakeWorkers() wakes it at once; work another
 * instance enqueued is found at the next poll (`pollMs`).
 */
export function startJobWorkers(maxConcurrency: number, options: { pollMs?: number; recurringCheckMs?: number } = {}) {
  if (maxConcurrency < 1) return async () => {};
  const pollMs = options.pollMs ?? 500;
  const recurringCheckMs = options.recurringCheckMs ?? 5000;
  // Woken by wakeWorkers() and by the database coming back after an outage.
  const idler = createIdler();
  const waker = idler.wake;
  wakers.add(waker);
  const idle = idler.idle;

  /** Batches running per queue in this process. */
  const busy = new Map<string, number>();
  const slots = new Set<Promise<void>>();
  const capacity = (queue: string) => Math.min(maxConcurrency, Math.max(1, handlers.get(queue)?.concurrency ?? 1));

  /** Runs batches of `queue` until it has nothing ready; then its slot is free again. */
  const runSlot = (queue: string) => {
    busy.set(queue, (busy.get(queue) ?? 0) + 1);
    const slot: Promise<void> = (async () => {
      try {
        const batchSize = handlers.get(queue)?.batchSize ?? 1;
        while (idler.running) {
          const handled = await runJobBatch(queue);
          if (!handled) break;
          // A full batch: there may be more than this slot can keep up with; the dispatcher may add one.
          if (handled >= batchSize && (busy.get(queue) ?? 0) < capacity(queue)) waker();
        }
      } catch (error) {
        // The dispatcher sees an outage itself and backs off; anything else is logged here.
        if (!noteDatabaseError(error)) log().error({ err: error, queue }, "job worker error");
      } finally {
        busy.set(queue, (busy.get(queue) ?? 1) - 1);
        // Deferred: the slot's promise exists by the time this runs.
        queueMicrotask(() => slots.delete(slot));
        // A freed slot may be needed at once if the queue filled up meanwhile.
        waker();
      }
    })();
    slots.add(slot);
  };

  const dispatcher = (async () => {
    let failures = 0;
    let nextRecurringCheck = 0;
    let scheduled = false;
    let roundStarted = -Infinity;
    while (idler.running) {
      // Woken again within ROUND_GAP_MS of the last round (each ingest commit wakes it): the wakes
      // meanwhile are served by one round, not one poll of the database each.
      const sinceRound = performance.now() - roundStarted;
      if (sinceRound < ROUND_GAP_MS) await sleep(ROUND_GAP_MS - sinceRound);
      roundStarted = performance.now();
      idler.begin();
      if (databaseIsDown()) {
        await idle(outageBackoffMs(++failures));
        continue;
      }
      try {
        await releaseUnreleased();
        if (!scheduled) {
          await scheduleRecurringJobs();
          scheduled = true;
        }
        if (Date.now() >= nextRecurringCheck) {
          nextRecurringCheck = Date.now() + recurringCheckMs;
          if ((await enqueueDueRecurringJobs()).length) waker();
        }
        const free = [...handlers.keys()].filter((queue) => (busy.get(queue) ?? 0) < capacity(queue));
        for (const queue of await readyQueues(free)) {
          if (!idler.running) break;
          // One more slot per round: a slot that keeps finding full batches asks for the next one.
          runSlot(queue);
        }
        failures = 0;
      } catch (error) {
        if (noteDatabaseError(error)) {
          await idle(outageBackoffMs(++failures));
          continue;
        }
        failures = 0;
        log().error({ err: error }, "job dispatcher error");
        await idle(1000);
        continue;
      }
      await idle(pollMs);
    }
  })();

  return async function stop() {
    wakers.delete(waker);
    idler.stop();
    await dispatcher;
    await Promise.all([...slots]);
  };
}
