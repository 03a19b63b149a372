import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { madeOnce } from "../support/made-once";

/**
 * A built server of a spec's own (the shared one stays untouched), on a free port with a fresh
 * temporary data directory, so concurrent runs never collide. It can be stopped and started again
 * on the same port and data: what a restart keeps is what the database keeps. A built server's data
 * directory starts as a copy of the run's migrated and seeded one (seededDataDir): its first start
 * is then a restart, about 3 CPU-seconds instead of 14 for the migrations and the demo's seeding.
 */
export interface OwnServer {
  base: string;
  dataDir: string;
  start: (env?: Record<string, string>) => Promise<void>;
  /**
   * The data directory as the first start finds it (a built server's: the seeded copy), without a
   * start: what a spec writes to the database before the server first runs costs no start and stop.
   */
  prepare: () => Promise<void>;
  /** SIGTERM by default; SIGKILL for a crash. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
  /** What the running server has written to stderr (its first 200 KB). */
  stderr: () => string;
  /** Stops it and removes its data directory. */
  dispose: () => Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// The build migrates and seeds in about 11 s on a quiet machine; `npm run dev` first has Vite transform
// every server module from source (about 23 s quiet), and under CI's load that has passed 90 s.
const startupDeadlineMs = (entry: string) => (entry.startsWith("build/") ? 90_000 : 200_000);

const exited = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once("exit", resolve)));

/**
 * One data directory per Playwright run (in the run's own temporary folder, server-env.ts), made by
 * the first built own server that needs it: a server started on it with no job workers, stopped once
 * it answers, so it holds the migrations and the demo's seed and nothing a job did; the first
 * worker to ask makes it, the others wait (tests/support/made-once.ts). What a copy cannot be
 * told from a fresh start by: the seeded Google Sheets links name the template server's port (no
 * spec on an own server opens them), and its stopped instance is in the System tab's list. A spec that needs the seeding itself passes `{ fresh: true }`.
 */
async function seededDataDir(): Promise<string> {
  const root = process.env.JUMBE_E2E_DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), "jumbe-e2e-"));
  process.env.JUMBE_E2E_DATA_DIR = root;
  const template = path.join(root, "own-server-seeded");
  await madeOnce(template, 2 * startupDeadlineMs("build/"), async () => {
    const maker = await ownServer("seeding", { fresh: true });
    try {
      await maker.start({ JOB_WORKERS: "0" });
      await maker.stop();
      // The database and the files it names; not the sandboxes' state (their addresses name the
      // template server's port): a copy's sandboxes start as a fresh server's do.
      for (const part of ["pglite", "media"])
        if (existsSync(path.join(maker.dataDir, part)))
          cpSync(path.join(maker.dataDir, part), path.join(template, part), { recursive: true });
    } finally {
      await maker.dispose();
    }
  });
  return template;
}

/**
 * `entry`: the script to run, the production build by default (`scripts/dev.mjs` for `npm run dev`).
 * `fresh`: a built server migrates and seeds its own empty data directory. The dev server always
 * does: migrating and seeding through Vite's module graph is part of what `npm run dev` must do.
 */
export async function ownServer(prefix: string, options: { entry?: string; fresh?: boolean } = {}): Promise<OwnServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `jumbe-${prefix}-`));
  let child: ChildProcess | undefined;
  let written = "";
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (!child) return;
    const running = child;
    child = undefined;
    if (running.exitCode === null && running.signalCode === null) running.kill(signal);
    await exited(running);
  };
  const entry = options.entry ?? "build/server/index.js";
  const prepare = async () => {
    if (entry.startsWith("build/") && !options.fresh && !existsSync(path.join(dataDir, "pglite")))
      cpSync(await seededDataDir(), dataDir, { recursive: true });
  };
  const start = async (env: Record<string, string> = {}) => {
    await stop();
    await prepare();
    // The build runs as `npm start` runs it: React's production build on a local deployment.
    const mode = entry.startsWith("build/") ? { NODE_ENV: "production", DEPLOYMENT: "local" } : { NODE_ENV: "development" };
    const started = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        APP_URL: base,
        ...mode,
        SANDBOX: "1",
        LOG_LEVEL: "error",
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = started;
    let errors = "";
    written = "";
    started.stderr!.on("data", (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-4000);
      if (written.length < 200_000) written += chunk.toString();
    });
    // A fresh database migrates and seeds the demo first: on a busy two-core machine that has taken
    // over 30 s, so wait on a deadline rather than a fixed number of tries.
    const deadline = Date.now() + startupDeadlineMs(entry);
    while (Date.now() < deadline) {
      if (started.exitCode !== null) break;
      try {
        if ((await fetch(`${base}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    throw new Error(
      `server did not start${started.exitCode !== null ? ` (exit ${started.exitCode})` : ` within ${startupDeadlineMs(entry) / 1000} s`}${errors ? `:\n${errors}` : ""}`,
    );
  };
  return {
    base,
    dataDir,
    start,
    prepare,
    stop,
    stderr: () => written,
    dispose: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
