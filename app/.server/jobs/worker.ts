import { db } from "../db/client";
import { databaseIsDown, isDatabaseUnavailableError, noteDatabaseError, onAvailabilityChange } from "../db/availability";
import { log } from "../log";
import { claimJobs, completeJobs, releaseClaims, releaseFailedJob, type Executor, type Job } from "./queue";

export interface JobHandler<Payload = unknown> {
  queue: string;
  /** Jobs claimed together and handled in one transaction. */
  batchSize: number;
  maxAttempts: number;
  /** Milliseconds a claim lasts before another worker may take the job (default 60 s). */
  leaseMs?: number;
  /**
   * false: the work calls outside systems and must not hold a transaction open meanwhile (on PGlite
   * that would stall every other query); it runs on the database and must be idempotent.
   */
  transactional?: boolean;
  /** Does the work of `jobs` inside `tx`; the worker deletes them in the same transaction. */
  run(jobs: Job<Payload>[], tx: Executor): Promise<void>;
}

const handlers = new Map<string, JobHandler<never>>();
const wakers = new Set<() => void>();
/** Claims this process could not hand back while the database was unreachable: id to attempts. */
const unreleased = new Map<number, number>();

/**
 * Milliseconds a worker waits after its `failures`-th consecutive failure to reach the database:
 * 0.5 s doubling to at most 15 s (decision 011). The database coming back wakes it earlier.
 */
export function outageBackoffMs(failures: number) {
  return Math.min(500 * 2 ** Math.max(0, failures - 1), 15_000);
}

export function registerJobHandler<Payload>(handler: JobHandler<Payload>) {
  handlers.set(handler.queue, handler as unknown as JobHandler<never>);
}

/** Tells this process's idle workers there is work (other processes find it by polling). */
export function wakeWorkers() {
  for (const wake of wakers) wake();
}

/** Claims and runs one batch of `queue`; returns how many jobs it handled. */
export async function runJobBatch(queue: string): Promise<number> {
  const handler = handlers.get(queue) as JobHandler<unknown> | undefined;
  if (!handler) throw new Error(`No handler for job queue ${queue}`);
  const jobs = await claimJobs<unknown>(queue, handler.batchSize, handler.leaseMs ?? 60_000);
  if (!jobs.length) return 0;
  try {
    await runInTransaction(handler, jobs);
  } catch (error) {
    if (isDatabaseUnavailableError(error)) return handBack(jobs, error);
    if (jobs.length === 1) {
      const outcome = await releaseFailedJob(jobs[0]!, error, handler.maxAttempts);
      log().error({ queue, jobId: jobs[0]!.id, attempts: jobs[0]!.attempts, outcome, err: error }, "job failed");
      return 1;
    }
    // One bad job must not hold back the others: run the batch again one job at a time.
    log().warn({ queue, jobs: jobs.length, err: error }, "job batch failed; retrying its jobs one by one");
    for (const job of jobs) {
      try {
        await runInTransaction(handler, [job]);
      } catch (single) {
        if (isDatabaseUnavailableError(single)) return handBack(jobs.slice(jobs.indexOf(job)), single);
        const outcome = await releaseFailedJob(job, single, handler.maxAttempts);
        log().error({ queue, jobId: job.id, attempts: job.attempts, outcome, err: single }, "job failed");
      }
    }
  }
  return jobs.length;
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
    await completeJobs(db(), jobs.map((j) => j.id));
    return;
  }
  await db().transaction(async (tx) => {
    await handler.run(jobs, tx);
    await completeJobs(tx, jobs.map((j) => j.id));
  });
}

/** Runs every registered queue until there is nothing left (tests and the CLI drain this way). */
export async function drainJobs(maxRounds = 1000) {
  let total = 0;
  for (let round = 0; round < maxRounds; round++) {
    let handled = 0;
    for (const queue of handlers.keys()) handled += await runJobBatch(queue);
    total += handled;
    if (!handled) break;
  }
  return total;
}

/**
 * Starts `count` workers in this process. Each loops over the registered queues, sleeps when idle
 * (woken at once by wakeWorkers, or after `pollMs` for work another instance enqueued).
 */
export function startJobWorkers(count: number, options: { pollMs?: number } = {}) {
  const pollMs = options.pollMs ?? 500;
  let running = true;
  const loops: Promise<void>[] = [];
  const sleepers = new Set<() => void>();
  const waker = () => {
    for (const resume of sleepers) resume();
  };
  wakers.add(waker);
  // The database back: workers waiting out an outage try again at once.
  const stopWatching = onAvailabilityChange((available) => {
    if (available) waker();
  });

  const idle = (ms = pollMs) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  for (let i = 0; i < count; i++) {
    loops.push(
      (async () => {
        // Consecutive failures to reach the database; the outage itself is logged once by availability.
        let failures = 0;
        while (running) {
          let handled = 0;
          if (databaseIsDown()) {
            await idle(outageBackoffMs(++failures));
            continue;
          }
          try {
            await releaseUnreleased();
            for (const queue of handlers.keys()) if (running) handled += await runJobBatch(queue);
            failures = 0;
          } catch (error) {
            if (noteDatabaseError(error)) {
              await idle(outageBackoffMs(++failures));
              continue;
            }
            failures = 0;
            log().error({ err: error }, "job worker error");
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
          if (!handled && running) await idle();
        }
      })(),
    );
  }

  return async function stop() {
    running = false;
    wakers.delete(waker);
    stopWatching();
    waker();
    await Promise.all(loops);
  };
}
