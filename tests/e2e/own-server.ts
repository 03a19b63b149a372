import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A built server of a spec's own (the shared one stays untouched), on a free port with a fresh
 * temporary data directory, so concurrent runs never collide. It can be stopped and started again
 * on the same port and data: what a restart keeps is what the database keeps.
 */
export interface OwnServer {
  base: string;
  dataDir: string;
  start: (env?: Record<string, string>) => Promise<void>;
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

/** `entry`: the script to run, the production build by default (`scripts/dev.mjs` for `npm run dev`). */
export async function ownServer(prefix: string, options: { entry?: string } = {}): Promise<OwnServer> {
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
  const start = async (env: Record<string, string> = {}) => {
    await stop();
    const entry = options.entry ?? "build/server/index.js";
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
    stop,
    stderr: () => written,
    dispose: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
