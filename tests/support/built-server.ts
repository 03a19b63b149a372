import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import net from "node:net";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { adminQuery } from "./database";
import { freePort } from "./local-tools";
import { madeOnce } from "./made-once";
import { postgresBinDir } from "./private-postgres";

/**
 * The production build run as `npm start` runs it, in a child process on a free port with a fresh
 * data directory: for tests of what Express does before and after React Router. `npm test` builds
 * beside the PGlite pass (which it tells, with JUMBE_BUILT_SERVER=later, that no build is there yet)
 * and runs these tests in the PostgreSQL pass; a plain `vitest run` runs them whenever build/ exists.
 */
export const BUILD = "build/server/index.js";
export const buildExists = () => process.env.JUMBE_BUILT_SERVER !== "later" && existsSync(BUILD);

export const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };
export const ADMIN = { email: "admin@jumbe.demo", password: "JumbeAdmin#2026" };

export { freePort };

/**
 * A free port held open until `release()`: for a process that binds it much later (nginx, after the
 * instances it fronts have started), so no other test's listen(0) is given it meanwhile.
 */
export function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve) => {
    const holder = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = holder.address() as net.AddressInfo;
      resolve({ port, release: () => new Promise<void>((done) => holder.close(() => done())) });
    });
  });
}

export interface BuiltServer {
  base: string;
  port: number;
  /** Its DATA_DIR (media files; the embedded database on PGlite). */
  dataDir: string;
  child: ChildProcess;
  /** What the server printed (its error log), for failure messages. */
  output: () => string;
  alive: () => boolean;
  stop: () => Promise<void>;
}

/**
 * A database of its own on the PostgreSQL pass (TEST_DATABASE_URL), for built servers: the test
 * harness's table resets never touch it. Undefined on PGlite. Made from the run's migrated template
 * (tests/support/database-template.ts), as each test file's is: the server's migrations then find
 * nothing to do (decision 126).
 */
export async function scratchDatabase(
  from: string = inject("postgresTemplate"),
): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  if (!process.env.TEST_DATABASE_URL) return undefined;
  const name = `jumbe_b_${randomBytes(6).toString("hex")}`;
  const template = from;
  await adminQuery(process.env.TEST_DATABASE_URL, `create database ${name}${template ? ` template ${template}` : ""}`);
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(process.env.TEST_DATABASE_URL!, `drop database if exists ${name} with (force)`) };
}

/**
 * Settings a built server may be given and still start from the run's seeded database: none of them
 * changes what the demo's seed writes or how the server reads it back (ENCRYPTION_KEY seals its
 * tokens, META_APP_ID names its ids, NODE_ENV, DEPLOYMENT and SANDBOX choose the defaults). APP_URL
 * only names the port of the seeded Google Sheets links, which no built-server test opens.
 */
const SEED_NEUTRAL = new Set([
  "APP_URL",
  "SITE_URL",
  "JOB_WORKERS",
  "LOG_LEVEL",
  "META_APP_SECRET",
  "TRUST_PROXY",
  "SHUTDOWN_GRACE_MS",
  "RATE_LIMIT_MULTIPLIER",
  "DATABASE_POOL_SIZE",
]);

/**
 * The run's demo, seeded once (PostgreSQL pass): a database made from the migrated template, on which
 * a built server with no job workers seeded the demo and stopped, and the media files it wrote. Each
 * later built server's database is created from it, and its data directory gets a copy of the media:
 * its start is then a restart (the migrations and the seed find nothing to do), about 3 CPU-seconds
 * instead of 14 (the figures of the browser suite's own servers, tests/e2e/own-server.ts). The
 * workers are processes of their own: an advisory lock on the test cluster lets one of them make it,
 * and the database is renamed to its final name only once complete. The global setup drops it
 * (tests/support/database-template.ts). The seed itself is tested where it is the subject
 * (demo-seed, demo-connected, and a server given settings that change it seeds its own).
 */
export const seededDemoName = (migratedTemplate: string) => `${migratedTemplate}_demo`;
export const seededDemoMedia = (migratedTemplate: string) => path.join(tmpdir(), `${seededDemoName(migratedTemplate)}-media`);
export const seededDemoDump = (migratedTemplate: string) => path.join(tmpdir(), `${seededDemoName(migratedTemplate)}.dump`);
interface SeededDemo {
  /** The database to create a built server's from (CREATE DATABASE ... TEMPLATE); "" on PGlite. */
  name: string;
  /** On PGlite: the embedded database's folder, copied to the server's DATA_DIR/pglite. */
  pglite?: string;
  /** The media files the seed wrote, for the server's DATA_DIR. */
  media: string;
  /** pg_dump's archive of it, for a cluster of a test's own (private-postgres.ts), when pg_dump is there. */
  dump?: string;
}
let seededDemo: Promise<SeededDemo | undefined> | undefined;

function seededDemoDatabase() {
  seededDemo ??= makeSeededDemo().catch((error: unknown) => {
    seededDemo = undefined;
    throw error;
  });
  return seededDemo;
}

async function makeSeededDemo(): Promise<SeededDemo | undefined> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return makeSeededPglite();
  const migrated = inject("postgresTemplate");
  if (!migrated) return undefined;
  const name = seededDemoName(migrated);
  const media = seededDemoMedia(migrated);
  const dump = seededDemoDump(migrated);
  const made = () => ({ name, media, dump: existsSync(dump) ? dump : undefined });
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query("select pg_advisory_lock(hashtext($1))", [name]);
    const found = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount) return made();
    const making = `${name}_making`;
    await admin.query(`drop database if exists ${making} with (force)`);
    await admin.query(`create database ${making} template ${migrated}`);
    const url = new URL(adminUrl);
    url.pathname = `/${making}`;
    const maker = await startBuiltServer({ JOB_WORKERS: "0" }, { databaseUrl: url.toString(), fresh: true });
    const madeMedia = path.join(maker.dataDir, "media");
    maker.child.kill("SIGTERM");
    await new Promise((resolve) =>
      maker.child.exitCode !== null || maker.child.signalCode !== null ? resolve(null) : maker.child.once("exit", resolve),
    );
    rmSync(media, { recursive: true, force: true });
    if (existsSync(madeMedia)) cpSync(madeMedia, media, { recursive: true });
    else mkdirSync(media, { recursive: true });
    await maker.stop();
    // Dumped now, while nobody creates a database from it (a connection to a template makes that fail).
    const bindir = postgresBinDir();
    rmSync(dump, { force: true });
    if (bindir && existsSync(path.join(bindir, "pg_dump")))
      execFileSync(path.join(bindir, "pg_dump"), ["--format=custom", "--file", dump, url.toString()], { stdio: "pipe" });
    await admin.query(`alter database ${making} rename to ${name}`);
    return made();
  } finally {
    await admin.query("select pg_advisory_unlock(hashtext($1))", [name]).catch(() => {});
    await admin.end();
  }
}

/**
 * On PGlite (a plain `vitest run` with a build; `npm test` runs the built servers on PostgreSQL): the
 * embedded database and media folders of a server that seeded and stopped, in the run's temporary
 * folder (the global setup's, removed after the run), made once by the first worker to ask
 * (made-once.ts), as the browser suite's own servers' copy is (tests/e2e/own-server.ts). Its server
 * runs no job workers: the copy holds the seed and nothing a job did.
 */
async function makeSeededPglite(): Promise<SeededDemo | undefined> {
  const template = inject("pgliteTemplate");
  if (!template) return undefined;
  const root = path.join(path.dirname(template), "built-server-seeded");
  const seeded = { name: "", media: path.join(root, "media"), pglite: path.join(root, "pglite") };
  // Another worker's seeding server has its own 110 s deadline.
  await madeOnce(root, 240_000, async () => {
    const maker = await startBuiltServer({ JOB_WORKERS: "0" }, { fresh: true });
    maker.child.kill("SIGTERM");
    await new Promise((resolve) =>
      maker.child.exitCode !== null || maker.child.signalCode !== null ? resolve(null) : maker.child.once("exit", resolve),
    );
    cpSync(path.join(maker.dataDir, "pglite"), seeded.pglite, { recursive: true });
    if (existsSync(path.join(maker.dataDir, "media"))) cpSync(path.join(maker.dataDir, "media"), seeded.media, { recursive: true });
    else mkdirSync(seeded.media, { recursive: true });
    await maker.stop();
  });
  return seeded;
}

/**
 * Restores the run's seeded demo into `databaseUrl` when it has no tables yet (a cluster's new
 * database; a second server on it finds them). True when the database holds the run's demo.
 */
async function restoreInto(databaseUrl: string, dump: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const [row] = (await client.query<{ users: string | null }>("select to_regclass('public.users')::text as users")).rows;
    if (row!.users) return !!(await client.query("select 1 from users where email = $1", [DEMO.email])).rowCount;
  } finally {
    await client.end();
  }
  execFileSync(path.join(postgresBinDir()!, "pg_restore"), ["--exit-on-error", "--no-owner", "--dbname", databaseUrl, dump], {
    stdio: "pipe",
  });
  return true;
}

/** Settings of a production demo host (decision 012) with fresh secrets; SMTP_URL is a closed port. */
export function demoHostEnv(controlToken: string): Record<string, string> {
  return {
    NODE_ENV: "production",
    DEPLOYMENT: "production",
    SANDBOX: "1",
    DEMO_HOST: "1",
    SANDBOX_CONTROL_TOKEN: controlToken,
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    META_APP_SECRET: randomBytes(24).toString("hex"),
    SMTP_URL: "smtp://127.0.0.1:9",
  };
}

/**
 * Starts the built server in sandbox mode (demo accounts seeded) with rate limits raised. On the
 * PostgreSQL pass (TEST_DATABASE_URL) it gets a database of its own, so the test harness's table
 * resets between tests never touch it, created from the run's seeded demo (seededDemoDatabase) unless
 * `extraEnv` changes what the seed writes or `fresh` asks for a seed of its own. An `extraEnv` value of
 * undefined removes the variable (APP_URL: the server's own default). `databaseUrl` shares a database
 * between servers.
 */
export async function startBuiltServer(
  extraEnv: Record<string, string | undefined> = {},
  options: { databaseUrl?: string; fresh?: boolean } = {},
): Promise<BuiltServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "jumbe-built-"));
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  const seeded = options.fresh || !Object.keys(extraEnv).every((name) => SEED_NEUTRAL.has(name)) ? undefined : await seededDemoDatabase();
  if (options.databaseUrl) {
    databaseUrl = options.databaseUrl;
    // A cluster of the test's own: an empty database gets the run's demo from its dump.
    if (seeded?.dump && (await restoreInto(databaseUrl, seeded.dump)))
      cpSync(seeded.media, path.join(dataDir, "media"), { recursive: true });
  } else {
    if (seeded) cpSync(seeded.media, path.join(dataDir, "media"), { recursive: true });
    if (seeded?.pglite) cpSync(seeded.pglite, path.join(dataDir, "pglite"), { recursive: true });
    const scratch = await scratchDatabase(seeded?.name);
    databaseUrl = scratch?.url;
    if (scratch) dropDatabase = scratch.drop;
  }
  const env: Record<string, string | undefined> = {
    ...process.env,
    // As `npm start` runs it: React's production build, a local deployment (decision 014).
    NODE_ENV: "production",
    DEPLOYMENT: "local",
    SANDBOX: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: "4",
    JOB_WORKERS: "0",
    LOG_LEVEL: "error",
    RATE_LIMIT_MULTIPLIER: "1000000",
    ...extraEnv,
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  delete env.GRAPH_API_BASE_URL;
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(process.execPath, [BUILD], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
    await dropDatabase();
  };
  // A deadline, not a number of tries: a start on a loaded two-core machine has taken over 45 s (the
  // 300 tries of 100 ms it had ran out first). Under the files' 120 s hooks, so the output is told.
  const deadline = Date.now() + 110_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/healthz`)).ok) {
        return {
          base,
          port,
          dataDir,
          child,
          output: () => output,
          alive: () => child.exitCode === null && child.signalCode === null,
          stop,
        };
      }
    } catch {
      // still starting
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`the built server did not start:\n${output}`);
}

/**
 * Runs the built server with settings it must refuse, and returns its exit code and output. It is
 * stopped (and the test fails on its code, not 1) once it answers instead; killed after 110 s, a hang
 * detector (60 s ran out on a machine at load 28 before the build had even loaded: `code: null`).
 */
export async function builtServerRefusal(extraEnv: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "jumbe-refuse-"));
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [BUILD], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  let done = false;
  void exited.then(() => (done = true));
  // Started after all: it answers, and is stopped.
  while (!done) {
    const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 250))]);
  }
  const code = await exited;
  clearTimeout(timer);
  rmSync(dataDir, { recursive: true, force: true });
  return { code, output };
}

/** Signs in through the JSON API and returns the session cookie (`jumbe_session=...`). */
export async function signInCookie(server: BuiltServer, account: { email: string; password: string }) {
  const response = await fetch(`${server.base}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.base },
    body: JSON.stringify(account),
  });
  if (response.status !== 200) throw new Error(`sign-in as ${account.email} answered ${response.status}: ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("jumbe_session="));
  if (!cookie) throw new Error("no session cookie");
  return cookie.split(";")[0]!;
}

/**
 * One more instance of the built server (development mode, no sandbox, no job workers) on a shared
 * database, for tests of several instances behind one database. The caller stops it (`kill`).
 */
export async function startClusterInstance(databaseUrl: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BUILD], {
    env: {
      ...process.env,
      NODE_ENV: "development",
      SANDBOX: "0",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: "4",
      JOB_WORKERS: "0",
      LOG_LEVEL: "error",
      APP_URL: `http://127.0.0.1:${port}`,
    },
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  // A deadline, not 200 tries of 100 ms: a start on a loaded machine has taken over 45 s (above).
  const deadline = Date.now() + 110_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { base, child };
    } catch {
      // starting
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGTERM");
  throw new Error("server did not start");
}

/** Stops cluster instances and waits for them to exit. */
export async function stopClusterInstances(children: ChildProcess[]) {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once("exit", resolve)))));
}
