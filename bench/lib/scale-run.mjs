// What the benchmarks at scale (bench/admin.mjs, bench/analytics.mjs) share: a private PostgreSQL
// cluster, migrated, with a client to seed it; bench/lib/analytics-report.ts run beside it; and the
// production build started on the cluster, its users signed in, beside the two references
// (bench/baseline-app at the nearest size and the bare node:http server).
import { spawn } from "node:child_process";
import path from "node:path";
import { baselinePath, startBaselines } from "../pages.mjs";
import { postgresBinDir, startPrivatePostgres } from "./database.mjs";
import { signIn } from "./http.mjs";
import { timeBare, timePage } from "./page-timing.mjs";
import { startServer } from "./server.mjs";

/** Runs bench/lib/analytics-report.ts with `node --import tsx`; its progress goes to our stderr, its JSON answer is returned. */
export function reportHelper(root, command, config) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(root, "bench/lib/analytics-report.ts"), command, JSON.stringify(config)],
      {
        cwd: root,
        env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", DATABASE_URL: config.databaseUrl },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = stdout.trim().split("\n").at(-1);
      if (code !== 0 || !line) reject(new Error(`bench/lib/analytics-report.ts ${command} failed (exit ${code})`));
      else resolve(JSON.parse(line));
    });
  });
}

/**
 * A private PostgreSQL cluster (`extraSettings` over startPrivatePostgres's), migrated with a
 * password hash for `password` (analytics-report.ts prepare), and a pg client on it:
 * `work({ databaseUrl, postgres, client, query, prepared })`, where query(text, params) resolves to
 * rows and prepared is { migrateMs, hash }. The cluster goes with the run, also when a signal ends
 * it; with `keep` it stays once `work` is done (bench/run.mjs waits for Ctrl-C, then destroys it).
 * Answers `work`'s answer, or { skipped } without PostgreSQL's binaries.
 */
export async function withPrivateCluster({ root, password, extraSettings, keep = false, log = console.log }, work) {
  if (!postgresBinDir()) return { skipped: "PostgreSQL's binaries were not found (/usr/lib/postgresql/15/bin or pg_config --bindir)" };
  const postgres = await startPrivatePostgres({ extraSettings });
  // destroy() is synchronous: it runs on exit too.
  const onSignal = () => {
    postgres.destroy();
    process.exit(130);
  };
  process.once("exit", postgres.destroy);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const databaseUrl = postgres.url;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    log(`  private PostgreSQL at ${databaseUrl}; migrations ...`);
    const prepared = await reportHelper(root, "prepare", { databaseUrl, password });
    await client.connect();
    const query = async (text, params) => (await client.query(text, params)).rows;
    return await work({ databaseUrl, postgres, client, query, prepared });
  } finally {
    await client.end().catch(() => {});
    if (!keep) {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.off("exit", postgres.destroy);
      postgres.destroy();
    }
  }
}

/**
 * The production build on `databaseUrl` (rate limits out of the way), each of `users` ({ name:
 * { email, password } }) signed in, and the references started:
 * `work({ baseUrl, cookies: { name: cookie }, refs })`; everything is stopped after.
 */
export async function withSignedInServer({ root, databaseUrl, users, log = console.log }, work) {
  log(`  starting the production build on the cluster ...`);
  const server = await startServer({ root, databaseUrl, extraEnv: { RATE_LIMIT_MULTIPLIER: "1000000" } });
  let refs = null;
  try {
    const cookies = {};
    for (const [name, user] of Object.entries(users)) cookies[name] = await signIn(server.baseUrl, user);
    refs = await startBaselines({ log });
    return await work({ baseUrl: server.baseUrl, cookies, refs });
  } finally {
    await refs?.stop();
    await server.stop();
  }
}

/**
 * The references for a response of `bytes` (`kind` "html" or "json"), `requests` times each:
 * { baseline: { path, bytes, median, p95 }, bare }.
 */
export async function timeReferences(refs, kind, bytes, requests) {
  const basePath = baselinePath(kind, bytes, refs.shell);
  const baseline = await timePage(`${refs.baseline.baseUrl}${basePath}`, "", requests);
  return {
    baseline: { path: basePath, bytes: baseline.bytes, median: baseline.median, p95: baseline.p95 },
    bare: await timeBare(refs.bare, bytes, requests),
  };
}
