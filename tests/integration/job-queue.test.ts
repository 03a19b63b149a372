// The job queue's scheduling rules (decision 015): run-at, priorities, unique keys, named queues with
// their own concurrency, recurring jobs enqueued once per period across instances, retention, and
// one log line per job.
import { afterEach, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { claimJobs, enqueueJob } from "~/.server/infrastructure/jobs/queue";
import { drainJobs, registerJobHandler, runJobBatch, startJobWorkers } from "~/.server/infrastructure/jobs/worker";
import { enqueueDueRecurringJobs, registerRecurringJob, scheduleRecurringJobs } from "~/.server/infrastructure/jobs/recurring";
import { RETENTION_DAYS, sweepExpiredData } from "~/.server/domains/housekeeping/sweep";
import { log } from "~/.server/infrastructure/log";
import { createVerifiedUser } from "../support/accounts";

const ran: { queue: string; payload: unknown }[] = [];
function recordingQueue(queue: string, options: { concurrency?: number; batchSize?: number; delayMs?: number } = {}) {
  let inFlight = 0;
  const stats = { maxInFlight: 0 };
  registerJobHandler<unknown>({
    queue,
    batchSize: options.batchSize ?? 1,
    maxAttempts: 3,
    concurrency: options.concurrency,
    transactional: false,
    async run(jobs) {
      inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      try {
        if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        for (const job of jobs) ran.push({ queue, payload: job.payload });
      } finally {
        inFlight--;
      }
    },
  });
  return stats;
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterEach(() => {
  ran.length = 0;
  vi.restoreAllMocks();
});

describe("scheduling", () => {
  it("does not run a job before its run-at time, and runs it once that has passed", async () => {
    recordingQueue("t.later");
    const id = await enqueueJob("t.later", { n: 1 }, { runAt: new Date(Date.now() + 3_600_000) });
    expect(id).toBeGreaterThan(0);
    expect(await runJobBatch("t.later")).toBe(0);
    await enqueueJob("t.later", { n: 2 }, { delayMs: 120_000 });
    expect(await runJobBatch("t.later")).toBe(0);
    await db().execute(sql`update jobs set run_at = now() - interval '1 second' where id = ${id}`);
    expect(await runJobBatch("t.later")).toBe(1);
    expect(ran).toEqual([{ queue: "t.later", payload: { n: 1 } }]);
  });

  it("claims the highest priority first, then the oldest", async () => {
    recordingQueue("t.priority");
    await enqueueJob("t.priority", "low-old", { priority: -5 });
    await enqueueJob("t.priority", "normal-old");
    await enqueueJob("t.priority", "urgent", { priority: 10 });
    await enqueueJob("t.priority", "normal-new");
    await enqueueJob("t.priority", "out-of-range", { priority: 1_000_000 });
    await drainJobs();
    expect(ran.map((r) => r.payload)).toEqual(["out-of-range", "urgent", "normal-old", "normal-new", "low-old"]);
  });

  it("keeps one pending job per unique key, and takes the key again once that job finished or gave up", async () => {
    recordingQueue("t.unique");
    const first = await enqueueJob("t.unique", { v: 1 }, { uniqueKey: "contact:42" });
    expect(first).not.toBeNull();
    expect(await enqueueJob("t.unique", { v: 2 }, { uniqueKey: "contact:42" })).toBeNull();
    expect(await enqueueJob("t.unique", { v: 3 }, { uniqueKey: "contact:43" })).not.toBeNull();
    // Claimed and running: still pending, still one.
    await claimJobs("t.unique", 1, 60_000);
    expect(await enqueueJob("t.unique", { v: 4 }, { uniqueKey: "contact:42" })).toBeNull();
    await db().execute(sql`update jobs set locked_until = null`);
    await drainJobs();
    expect(ran.map((r) => r.payload)).toEqual([{ v: 1 }, { v: 3 }]);
    expect(await enqueueJob("t.unique", { v: 5 }, { uniqueKey: "contact:42" })).not.toBeNull();
    const rows = await queryRows<{ unique_key: string; finished: boolean }>(
      db(),
      sql`select unique_key, finished_at is not null as finished from jobs order by id`,
    );
    expect(rows).toEqual([
      { unique_key: "contact:42", finished: true },
      { unique_key: "contact:43", finished: true },
      { unique_key: "contact:42", finished: false },
    ]);
  });

  it("keeps finished jobs (for inspection) but never runs them again", async () => {
    recordingQueue("t.once");
    await enqueueJob("t.once", "x");
    expect(await drainJobs()).toBe(1);
    expect(await drainJobs()).toBe(0);
    expect(ran).toHaveLength(1);
    const [row] = await queryRows<{ finished: boolean; locked: boolean }>(
      db(),
      sql`select finished_at is not null as finished, locked_until is not null as locked from jobs`,
    );
    expect(row).toEqual({ finished: true, locked: false });
  });
});

describe("workers", () => {
  it("runs each queue with its own concurrency, so a slow queue holds up no other", async () => {
    const slow = recordingQueue("t.slow", { concurrency: 1, delayMs: 150 });
    const wide = recordingQueue("t.wide", { concurrency: 3, delayMs: 100 });
    for (let i = 0; i < 4; i++) await enqueueJob("t.slow", `slow-${i}`);
    for (let i = 0; i < 12; i++) await enqueueJob("t.wide", `wide-${i}`);
    const stop = startJobWorkers(4, { pollMs: 20 });
    try {
      await until(() => ran.length === 16, "every job ran");
    } finally {
      await stop();
    }
    expect(slow.maxInFlight).toBe(1);
    expect(wide.maxInFlight).toBe(3);
    // The wide queue did not wait for the slow one: its last job finished before the slow queue's.
    const order = ran.map((r) => r.queue);
    expect(order.lastIndexOf("t.wide")).toBeLessThan(order.lastIndexOf("t.slow"));
  });

  it("caps every queue at the process's JOB_WORKERS", async () => {
    const wide = recordingQueue("t.capped", { concurrency: 8, delayMs: 60 });
    for (let i = 0; i < 10; i++) await enqueueJob("t.capped", i);
    const stop = startJobWorkers(2, { pollMs: 20 });
    try {
      await until(() => ran.length === 10, "every job ran");
    } finally {
      await stop();
    }
    expect(wide.maxInFlight).toBe(2);
  });

  it("starts nothing with JOB_WORKERS=0", async () => {
    recordingQueue("t.off");
    await enqueueJob("t.off", 1);
    const stop = startJobWorkers(0, { pollMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await stop();
    expect(ran).toHaveLength(0);
  });

  it("logs one line per job with its queue, attempt, outcome and duration", async () => {
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(log(), "info").mockImplementation(((line: Record<string, unknown>, message: string) => {
      if (message === "job") lines.push(line);
    }) as never);
    vi.spyOn(log(), "error").mockImplementation(((line: Record<string, unknown>, message: string) => {
      if (message === "job") lines.push(line);
    }) as never);
    recordingQueue("t.logged", { batchSize: 5 });
    registerJobHandler({
      queue: "t.failing",
      batchSize: 1,
      maxAttempts: 1,
      run: async () => {
        throw new Error("Graph said no");
      },
    });
    const ids = [await enqueueJob("t.logged", "a"), await enqueueJob("t.logged", "b")];
    const failing = await enqueueJob("t.failing", "c");
    await runJobBatch("t.logged");
    await runJobBatch("t.failing");
    expect(lines).toHaveLength(3);
    expect(lines.slice(0, 2).map((l) => [l.queue, l.jobId, l.attempt, l.outcome, l.batch])).toEqual([
      ["t.logged", ids[0], 1, "done", 2],
      ["t.logged", ids[1], 1, "done", 2],
    ]);
    expect(lines[2]).toMatchObject({ queue: "t.failing", jobId: failing, attempt: 1, outcome: "failed" });
    expect((lines[2]!.err as Error).message).toBe("Graph said no");
    expect(lines.every((l) => typeof l.ms === "number" && (l.ms as number) >= 0)).toBe(true);
  });
});

describe("recurring jobs", () => {
  it("enqueues a due job exactly once however many instances ask at the same moment", async () => {
    recordingQueue("t.recurring");
    registerRecurringJob({ name: "t-nightly", queue: "t.recurring", everySeconds: 3600 });
    await scheduleRecurringJobs();
    // Eight instances at once (on PostgreSQL, eight pooled connections racing for the row).
    const results = await Promise.all(Array.from({ length: 8 }, () => enqueueDueRecurringJobs()));
    expect(results.flat().filter((name) => name === "t-nightly")).toHaveLength(1);
    const [count] = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from jobs where queue = 't.recurring'`);
    expect(count!.n).toBe(1);
    // Not due again until its period has passed, and a restart does not make it due.
    await scheduleRecurringJobs();
    expect(await enqueueDueRecurringJobs()).not.toContain("t-nightly");
    const [schedule] = await queryRows<{ in_seconds: number }>(
      db(),
      sql`select extract(epoch from next_run_at - now())::int as in_seconds from recurring_jobs where name = 't-nightly'`,
    );
    expect(schedule!.in_seconds).toBeGreaterThan(3500);
  });

  it("does not pile up while the previous period's job is still pending, and runs again after it finished", async () => {
    recordingQueue("t.recurring2");
    registerRecurringJob({ name: "t-sweep", queue: "t.recurring2", everySeconds: 60 });
    await scheduleRecurringJobs();
    expect(await enqueueDueRecurringJobs()).toContain("t-sweep");
    await db().execute(sql`update recurring_jobs set next_run_at = now() - interval '1 second' where name = 't-sweep'`);
    expect(await enqueueDueRecurringJobs()).not.toContain("t-sweep"); // the first is still waiting
    await drainJobs();
    await db().execute(sql`update recurring_jobs set next_run_at = now() - interval '1 second' where name = 't-sweep'`);
    expect(await enqueueDueRecurringJobs()).toContain("t-sweep");
    await drainJobs();
    expect(ran.filter((r) => r.queue === "t.recurring2")).toHaveLength(2);
  });

  it("after every instance was down for several periods, runs once and not once per missed period", async () => {
    recordingQueue("t.recurring3");
    registerRecurringJob({ name: "t-hourly", queue: "t.recurring3", everySeconds: 3600 });
    await scheduleRecurringJobs();
    await db().execute(sql`update recurring_jobs set next_run_at = now() - interval '5 hours' where name = 't-hourly'`);
    expect(await enqueueDueRecurringJobs()).toContain("t-hourly");
    await drainJobs();
    expect(await enqueueDueRecurringJobs()).not.toContain("t-hourly");
    const [schedule] = await queryRows<{ in_seconds: number }>(
      db(),
      sql`select extract(epoch from next_run_at - now())::int as in_seconds from recurring_jobs where name = 't-hourly'`,
    );
    expect(schedule!.in_seconds).toBeGreaterThan(3500);
  });

  it("is run by the workers: housekeeping runs as a recurring job", async () => {
    const { registerJobHandlers } = await import("~/.server/composition/job-handlers");
    registerJobHandlers();
    const stop = startJobWorkers(1, { pollMs: 20, recurringCheckMs: 20 });
    try {
      await until(async () => {
        const rows = await queryRows<{ n: number }>(
          db(),
          sql`select count(*)::int as n from jobs where queue = 'housekeeping' and finished_at is not null`,
        );
        return rows[0]!.n === 1;
      }, "housekeeping ran");
    } finally {
      await stop();
    }
  });
});

describe("retention", () => {
  it("removes processed webhook deliveries, API usage and jobs past their retention, and keeps the rest", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Retention Ltd" });
    const days = (n: number) => sql`now() - make_interval(days => ${n})`;
    await db().execute(sql`insert into webhook_events (received_at, body, signature, processed_at, outcome) values
      (${days(RETENTION_DAYS.webhookEvents + 1)}, 'old processed', 's', now(), 'processed'),
      (${days(RETENTION_DAYS.webhookEvents + 1)}, 'old unprocessed', 's', null, null),
      (${days(RETENTION_DAYS.webhookEvents - 1)}, 'recent processed', 's', now(), 'processed')`);
    await db().execute(sql`insert into api_usage_minutely (organization_id, minute, calls, succeeded, total_ms) values
      (${organization.id}, date_trunc('minute', ${days(RETENTION_DAYS.apiUsage + 1)}), 5, 5, 50),
      (${organization.id}, date_trunc('minute', ${days(RETENTION_DAYS.apiUsage - 1)}), 7, 7, 70)`);
    await db().execute(sql`insert into jobs (queue, payload, finished_at, failed_at) values
      ('t.r', '"old finished"', ${days(RETENTION_DAYS.finishedJobs + 1)}, null),
      ('t.r', '"recent finished"', ${days(RETENTION_DAYS.finishedJobs - 1)}, null),
      ('t.r', '"old failed"', null, ${days(RETENTION_DAYS.failedJobs + 1)}),
      ('t.r', '"recent failed"', null, ${days(RETENTION_DAYS.finishedJobs + 1)}),
      ('t.r', '"pending"', null, null)`);
    // Idempotency keys answer for 24 hours.
    await db().execute(sql`insert into api_idempotency (organization_id, key, request_hash, status, response, created_at) values
      (${organization.id}, 'old-key', 'h', 202, '{}'::jsonb, now() - interval '25 hours'),
      (${organization.id}, 'fresh-key', 'h', 202, '{}'::jsonb, now() - interval '23 hours')`);
    // A person reached by a template counts against the messaging limit for 24 hours.
    await db().execute(sql`insert into messaging_limit_recipients (portfolio_id, recipient, reached_at) values
      ('portfolio-1', '+254700000001', now() - interval '25 hours'),
      ('portfolio-1', '+254700000002', now() - interval '23 hours')`);
    // The inbox's change log replays 48 hours; a member's presence that stopped refreshing goes.
    await db().execute(sql`insert into inbox_events (organization_id, conversation_id, kind, created_at) values
      (${organization.id}, gen_random_uuid(), 'conversation', now() - interval '49 hours'),
      (${organization.id}, gen_random_uuid(), 'conversation', now() - interval '47 hours')`);
    // Graph calls (the admin console's View Logs) are kept 30 days.
    await db().execute(sql`insert into graph_call_log (method, path, duration_ms, created_at) values
      ('GET', '/old', 10, now() - interval '31 days'), ('GET', '/recent', 10, now() - interval '29 days')`);
    // A delivery report no send of Jumbe's claimed is kept two days (issue 77).
    await db().execute(sql`insert into sms_early_reports (organization_id, at_message_id, status, received_at) values
      (${organization.id}, 'ATXid_old', 'Success', now() - interval '49 hours'),
      (${organization.id}, 'ATXid_fresh', 'Success', now() - interval '47 hours')`);

    expect(await sweepExpiredData()).toEqual({
      contactTags: 0,
      inboxEvents: 1,
      webhookEvents: 1,
      apiUsage: 1,
      jobs: 2,
      graphCalls: 1,
      idempotencyKeys: 1,
      messagingLimitRecipients: 1,
      templateSamples: 0,
      smsEarlyReports: 1,
    });
    expect(
      (await queryRows<{ at_message_id: string }>(db(), sql`select at_message_id from sms_early_reports`)).map((r) => r.at_message_id),
    ).toEqual(["ATXid_fresh"]);
    expect(
      (await queryRows<{ recipient: string }>(db(), sql`select recipient from messaging_limit_recipients`)).map((r) => r.recipient),
    ).toEqual(["+254700000002"]);
    expect((await queryRows<{ key: string }>(db(), sql`select key from api_idempotency`)).map((r) => r.key)).toEqual(["fresh-key"]);
    expect((await queryRows<{ body: string }>(db(), sql`select body from webhook_events order by id`)).map((r) => r.body)).toEqual([
      "old unprocessed",
      "recent processed",
    ]);
    expect((await queryRows<{ calls: number }>(db(), sql`select calls from api_usage_minutely`)).map((r) => r.calls)).toEqual([7]);
    expect((await queryRows<{ payload: string }>(db(), sql`select payload from jobs order by id`)).map((r) => r.payload)).toEqual([
      "recent finished",
      "recent failed",
      "pending",
    ]);
  });
});
