// Starts the production build as a child process on a free port, the way `npm start` runs it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startSmtpSink } from "./smtp-sink.mjs";

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Runs `node build/server/index.js` from `root` with a fresh DATA_DIR and waits for /healthz.
 * It runs as production does (NODE_ENV=production: React's production build, fresh secrets), as a
 * demo host (SANDBOX=1 with DEMO_HOST=1 and a random SANDBOX_CONTROL_TOKEN) so the demo accounts are
 * seeded. APP_URL is the address the benchmarks open (pages at another host answer 421). SMTP_URL
 * points at a sink of the benchmark's own (bench/lib/smtp-sink.mjs): production requires one, and a
 * mail a run causes (the owner's usage warning during a campaign) is delivered rather than failing
 * its job. `mails()` says how many it took.
 */
export async function startServer({ root, databaseUrl, extraEnv = {}, nodeArgs = [] }) {
  const entry = path.join(root, "build/server/index.js");
  if (!existsSync(entry)) throw new Error("build/server/index.js is missing: run `npm run build` first.");

  const port = await freePort();
  const smtp = await startSmtpSink();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-"));
  const childEnv = { ...process.env };
  // A developer's shell settings must not change what is measured.
  for (const name of [
    "NODE_ENV",
    "APP_URL",
    "SITE_URL",
    "SMTP_URL",
    "DATABASE_URL",
    "SANDBOX",
    "DEMO_HOST",
    "SANDBOX_CONTROL_TOKEN",
    "HOST",
  ])
    delete childEnv[name];
  Object.assign(childEnv, {
    NODE_ENV: "production",
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    META_APP_SECRET: randomBytes(24).toString("hex"),
    SMTP_URL: smtp.url,
    APP_URL: `http://127.0.0.1:${port}`,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    SANDBOX: "1",
    DEMO_HOST: "1",
    SANDBOX_CONTROL_TOKEN: randomBytes(24).toString("base64url"),
    ...extraEnv,
  });
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;

  // Node's flags as `npm start` (package.json "serve") and the systemd unit give them (decision 017).
  // BENCH_CPU_PROF_DIR: every server a benchmark starts writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  const child = spawn(process.execPath, ["--max-semi-space-size=64", ...profile, ...nodeArgs, entry], {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

  const baseUrl = `http://127.0.0.1:${port}`;
  // keepDataDir: the caller reads the stopped server's PGlite files, then calls removeDataDir().
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const stop = async ({ keepDataDir = false } = {}) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (!keepDataDir) removeDataDir();
    await smtp.stop();
  };

  try {
    await waitForHealth(baseUrl, exited, 90_000);
  } catch (error) {
    await stop();
    throw new Error(`${error.message}\n--- server output ---\n${output.trim()}`);
  }
  return { baseUrl, port, pid: child.pid, dataDir, stop, removeDataDir, output: () => output, mails: smtp.received };
}

async function waitForHealth(baseUrl, exited, timeoutMs) {
  let gone;
  exited.then((how) => (gone = how));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the server exited before it was healthy (code ${gone.code}, signal ${gone.signal})`);
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server was not healthy within ${timeoutMs / 1000} s`);
}

/**
 * For a bench module that also runs on its own (`node bench/x.mjs`): when `moduleUrl` is the script
 * node was asked to run, starts the production build, hands `work` its address and the project's
 * root, and stops it afterwards; imported by another module, does nothing.
 */
export async function whenRunDirectly(moduleUrl, work) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  const root = path.resolve(path.dirname(fileURLToPath(moduleUrl)), "..");
  const server = await startServer({ root });
  try {
    await work(server.baseUrl, root);
  } finally {
    await server.stop();
  }
}
