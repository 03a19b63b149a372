// The baseline for Jumbe's pages: bench/baseline-app, a minimal React Router 7 app on the same
// installed packages, built once (again when its sources or the installed React Router change)
// and served by its Express server in a child process.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startListeningChild } from "./child.mjs";

export const BASELINE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../baseline-app");
// react-router.config.ts builds into bench/results/ (ignored by git and ESLint).
const ENTRY = path.join(BASELINE_DIR, "../results/baseline-app-build/server/index.js");
const LOCK = "/tmp/jumbe-e2e.lock";

function newestSource() {
  const files = ["package.json", "react-router.config.ts", "vite.config.ts"].map((name) => path.join(BASELINE_DIR, name));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(path.join(BASELINE_DIR, "app"));
  // An upgrade of the installed React Router or Vite makes the build stale too.
  for (const pkg of ["react-router", "@react-router/dev", "vite"]) {
    try {
      files.push(path.join(path.dirname(fileURLToPath(import.meta.resolve(`${pkg}/package.json`))), "package.json"));
    } catch {
      // not resolvable as a file: the sources decide
    }
  }
  return Math.max(...files.filter((file) => existsSync(file)).map((file) => statSync(file).mtimeMs));
}

/** Builds bench/baseline-app with `react-router build` when its build is missing or older than its sources. */
export function ensureBaselineBuild({ log = console.log } = {}) {
  if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestSource()) return { built: false };
  log("Building bench/baseline-app (react-router build) ...");
  const started = Date.now();
  const npx = ["npx", "--no-install", "react-router", "build"];
  // Builds on this machine queue on one lock (flock, where installed), so none runs beside another.
  const [command, ...args] = hasFlock() ? ["flock", LOCK, ...npx] : npx;
  try {
    execFileSync(command, args, { cwd: BASELINE_DIR, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production" } });
  } catch (error) {
    throw new Error(`building bench/baseline-app failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
  }
  return { built: true, seconds: (Date.now() - started) / 1000 };
}

function hasFlock() {
  try {
    execFileSync("flock", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Starts the baseline app's server (NODE_ENV=production) on a free port: { baseUrl, pid, stop }. */
export function startBaselineApp() {
  const env = { ...process.env, NODE_ENV: "production" };
  delete env.PORT;
  return startListeningChild(path.join(BASELINE_DIR, "server.mjs"), { name: "bench/baseline-app", cwd: BASELINE_DIR, env });
}
