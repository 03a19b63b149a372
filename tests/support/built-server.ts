import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import net from "node:net";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { adminQuery } from "./database";

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

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

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
export async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  if (!process.env.TEST_DATABASE_URL) return undefined;
  const name = `jumbe_b_${randomBytes(6).toString("hex")}`;
  const template = inject("postgresTemplate");
  await adminQuery(process.env.TEST_DATABASE_URL, `create database ${name}${template ? ` template ${template}` : ""}`);
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(process.env.TEST_DATABASE_URL!, `drop database if exists ${name} with (force)`) };
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
 * resets between tests never touch it. An `extraEnv` value of undefined removes the variable
 * (APP_URL: the server's own default). `databaseUrl` shares a database between servers.
 */
export async function startBuiltServer(
  extraEnv: Record<string, string | undefined> = {},
  options: { databaseUrl?: string } = {},
): Promise<BuiltServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "jumbe-built-"));
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  if (options.databaseUrl) {
    databaseUrl = options.databaseUrl;
  } else {
    const scratch = await scratchDatabase();
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
        return { base, port, child, output: () => output, alive: () => child.exitCode === null && child.signalCode === null, stop };
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
 * stopped (and the test fails on `code: null`) if it starts listening instead.
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
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
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
