// Jumbe through PgBouncer in transaction pooling (issue 78, decision 162), on a private PostgreSQL 15
// cluster (bench/lib/database.mjs) with one tenant, and Debian's PgBouncer in front of it:
//
// 1. Cost per request: the Overview page's reads (dashboardOverview: the figures from the rollups,
//    the recent activity, the WhatsApp connections) with 10 at once on a pool of 10, in three ways
//    measured in alternating rounds of the same run:
//      - direct, statements named per connection (decision 062: today's default);
//      - direct, unnamed (what DATABASE_POOLER=pgbouncer-transaction turns off, alone);
//      - through PgBouncer (unnamed, pool_mode = transaction).
//    For each: requests a second, and CPU per request of this process, of PostgreSQL (the
//    postmaster and its backends) and of PgBouncer.
// 2. Connections: 8 instances (child processes, bench/lib/pgbouncer-instance.ts), each with a pool
//    of 10 and 10 clients at once and its LISTEN connection, directly and then through PgBouncer
//    (default_pool_size 30): the most client backends PostgreSQL served at once (pg_stat_activity,
//    sampled every 50 ms), and the time to serve every request.
//
//   node --import tsx bench/pgbouncer.ts [--requests=1500] [--rounds=3] [--instance-requests=400]
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import path from "node:path";
import pg from "pg";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase, rawQuery, setCurrentDatabase, type DatabaseHandle } from "../app/.server/infrastructure/db/client";
import { recordActivity } from "../app/.server/domains/activity";
import { dashboardOverview } from "../app/.server/domains/dashboard/overview";
import type { CurrentUser } from "../app/.server/domains/auth";
import { findPgBouncer, startPgBouncer } from "../tests/support/pgbouncer";
import { startPrivatePostgres } from "./lib/database.mjs";
import { cpuBetween, cpuOf, machineBusySeconds } from "./lib/proc.mjs";

const options = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key!, value ?? "1"];
  }),
);
const REQUESTS = Number(options.requests ?? 1500);
const ROUNDS = Number(options.rounds ?? 3);
const INSTANCES = 8;
const INSTANCE_POOL = 10;
const INSTANCE_REQUESTS = Number(options["instance-requests"] ?? 400);
const BOUNCER_POOL = 30;
const root = path.resolve(import.meta.dirname, "..");
const say = (what: string) => process.stderr.write(`pgbouncer bench: ${what}\n`);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

interface Way {
  name: string;
  handle: DatabaseHandle;
  requests: number;
  seconds: number;
  nodeCpu: number;
  postgresCpu: number;
  bouncerCpu: number;
}

async function main() {
  const binary = findPgBouncer();
  if (!binary) throw new Error("PgBouncer not found (Debian's pgbouncer)");
  const cluster = await startPrivatePostgres({ maxConnections: 200 });
  say("PostgreSQL started");
  const bouncer = await startPgBouncer(binary, cluster.url, { poolSize: BOUNCER_POOL });
  say("PgBouncer started");
  const busyAtStart = machineBusySeconds();
  const loadAverageAtStart = (await import("node:os")).loadavg().map((n) => round(n, 2));
  const startedAt = performance.now();
  try {
    setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn" }));
    const direct = await openDatabase({ databaseUrl: cluster.url, poolSize: 10 });
    say("migrated");
    // A tenant with a little history (the demo seed takes minutes on a busy machine): its activity
    // log and an empty WhatsApp side; the page's statements are the same ones, on fewer rows.
    const [org] = await rawQuery<{ id: string }>(
      `insert into organizations (name, business_id, status) values ('Bench Sacco', 'BENCH-' || substr(md5(random()::text), 1, 8), 'active') returning id`,
    );
    for (let i = 0; i < 40; i++)
      await recordActivity({
        organizationId: org!.id,
        type: "billing",
        status: "success",
        action: "Payment received",
        details: `Payment ${i + 1}`,
      });
    const current = { organization: { id: org!.id } } as CurrentUser;
    const unnamed = await openDatabase({
      databaseUrl: cluster.url,
      pooler: "pgbouncer-transaction",
      directUrl: cluster.url,
      poolSize: 10,
      migrate: false,
    });
    const pooled = await openDatabase({
      databaseUrl: bouncer.through(cluster.url),
      pooler: "pgbouncer-transaction",
      directUrl: cluster.url,
      poolSize: 10,
      migrate: false,
    });
    const ways: Way[] = [
      { name: "direct, named per connection (today)", handle: direct },
      { name: "direct, unnamed", handle: unnamed },
      { name: "through PgBouncer (transaction pooling)", handle: pooled },
    ].map((way) => ({ ...way, requests: 0, seconds: 0, nodeCpu: 0, postgresCpu: 0, bouncerCpu: 0 }));

    const run = async (way: Way, count: number, measured: boolean) => {
      setCurrentDatabase(way.handle);
      let next = 0;
      const pids = [...cluster.processIds(), bouncer.pid];
      const cpuBefore = cpuOf(pids);
      const ownBefore = process.cpuUsage();
      const t = performance.now();
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next++ < count) await dashboardOverview(current);
        }),
      );
      const seconds = (performance.now() - t) / 1000;
      const own = process.cpuUsage(ownBefore);
      const cpuAfter = cpuOf([...cluster.processIds(), bouncer.pid]);
      if (!measured) return;
      way.requests += count;
      way.seconds += seconds;
      way.nodeCpu += (own.user + own.system) / 1e6;
      way.bouncerCpu += (cpuAfter.get(bouncer.pid) ?? 0) - (cpuBefore.get(bouncer.pid) ?? 0);
      cpuAfter.delete(bouncer.pid);
      way.postgresCpu += cpuBetween(cpuBefore, cpuAfter);
    };
    say("measuring the cost per request");
    // Warm: every connection opened, every statement seen (and named where it is).
    for (const way of ways) await run(way, 300, false);
    for (let r = 0; r < ROUNDS; r++) {
      // Each round in another order, so a change in the machine's load falls on every way alike.
      const order = r % 2 ? [...ways].reverse() : ways;
      for (const way of order) await run(way, REQUESTS, true);
    }
    const cost = ways.map((way) => ({
      way: way.name,
      requests: way.requests,
      perSecond: round(way.requests / way.seconds),
      nodeCpuUs: round((way.nodeCpu / way.requests) * 1e6, 0),
      postgresCpuUs: round((way.postgresCpu / way.requests) * 1e6, 0),
      pgbouncerCpuUs: round((way.bouncerCpu / way.requests) * 1e6, 0),
      totalCpuUs: round(((way.nodeCpu + way.postgresCpu + way.bouncerCpu) / way.requests) * 1e6, 0),
    }));
    // The instances alone on PostgreSQL from here: this process's pools closed.
    for (const handle of [unnamed, pooled]) await handle.close();
    setCurrentDatabase(direct);
    await closeDatabase();

    say("8 instances, direct then through PgBouncer");
    const connections = [];
    for (const mode of ["none", "pgbouncer-transaction"] as const) {
      const url = mode === "none" ? cluster.url : bouncer.through(cluster.url);
      connections.push({ mode, ...(await instances(url, mode, cluster.url, org!.id)) });
    }
    const result = {
      loadAverageAtStart,
      cost,
      connections,
      settings: { instances: INSTANCES, instancePool: INSTANCE_POOL, bouncerPool: BOUNCER_POOL, postgres: cluster.settings },
      machine: {
        cores: (await import("node:os")).cpus().length,
        busyCoresDuringRun: round((machineBusySeconds() - busyAtStart) / ((performance.now() - startedAt) / 1000), 2),
        loadAverageAtEnd: (await import("node:os")).loadavg().map((n) => round(n, 2)),
      },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await closeDatabase().catch(() => {});
    await bouncer.stop();
    cluster.destroy();
  }
}

/** 8 instances at once against `url`: the most PostgreSQL client backends seen, and how long they took. */
async function instances(url: string, pooler: string, directUrl: string, organizationId: string) {
  const children = Array.from({ length: INSTANCES }, () =>
    spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(root, "bench/lib/pgbouncer-instance.ts"),
        url,
        pooler,
        directUrl,
        organizationId,
        String(INSTANCE_POOL),
        String(INSTANCE_REQUESTS),
      ],
      { cwd: root, stdio: ["pipe", "pipe", "pipe"] },
    ),
  );
  const outputs = children.map((child) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    return { out: () => out, err: () => err, exit: new Promise<number | null>((resolve) => child.once("exit", resolve)) };
  });
  const ready = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (outputs[i]!.out().includes("ready")) {
          clearInterval(check);
          resolve();
        } else if (children[i]!.exitCode !== null) {
          clearInterval(check);
          reject(new Error(`instance ${i} ended: ${outputs[i]!.err().slice(-2000)}`));
        }
      }, 50);
    });
  await Promise.all(children.map((_, i) => ready(i)));
  const watcher = new pg.Client({ connectionString: directUrl });
  await watcher.connect();
  // Every client backend but the watcher's, and of them the LISTEN connections (direct in both modes).
  const count = async () => {
    const { rows } = await watcher.query<{ all: string; listening: string }>(
      `select count(*) as all, count(*) filter (where query ilike 'listen %') as listening
       from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()`,
    );
    return { all: Number(rows[0]!.all), listening: Number(rows[0]!.listening) };
  };
  const most = await count();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = await count();
      most.all = Math.max(most.all, now.all);
      most.listening = Math.max(most.listening, now.listening);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  for (const child of children) child.stdin.write("go\n");
  await Promise.all(outputs.map((output) => output.exit));
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  await watcher.end();
  const results = outputs.map((output, i) => {
    const line = output.out().trim().split("\n").at(-1) ?? "";
    try {
      return JSON.parse(line) as { requests: number; errors: number; seconds: number };
    } catch {
      throw new Error(`instance ${i} printed no result: ${output.err().slice(-2000)}`);
    }
  });
  const requests = results.reduce((sum, each) => sum + each.requests, 0);
  return {
    mostClientBackends: most.all,
    ofWhichListening: most.listening,
    requests,
    errors: results.reduce((sum, each) => sum + each.errors, 0),
    seconds: round(seconds, 2),
    slowestInstanceSeconds: Math.max(...results.map((each) => each.seconds)),
    perSecond: round(requests / Math.max(...results.map((each) => each.seconds))),
  };
}

await main();
