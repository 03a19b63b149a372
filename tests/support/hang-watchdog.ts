import { setInterval as setIntervalReal } from "node:timers";
import { Worker } from "node:worker_threads";
import { beforeAll, beforeEach, expect } from "vitest";

/**
 * A test worker whose thread never comes back to its event loop (a statement spinning inside PGlite,
 * decision 179) is past every test and hook deadline: vitest's timers run on that same thread. A
 * thread of its own watches a counter the event loop moves each second; when it has not moved for
 * JUMBE_TEST_HANG_MS (five minutes unless told), it writes which test was running to the worker's
 * standard error and ends the worker, so the run fails then, naming the test, rather than at CI's
 * deadline with no word of where.
 */
export function hangLimitMs(value = process.env.JUMBE_TEST_HANG_MS): number | null {
  if (value === undefined || value === "") return 300_000;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0)
    throw new Error(
      `JUMBE_TEST_HANG_MS is "${value}": a whole number of milliseconds, or 0 for no watchdog (a debugger held at a breakpoint)`,
    );
  return ms === 0 ? null : ms;
}

const WATCHER = `
const { parentPort, workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const ticks = new Int32Array(workerData.ticks);
let running = "no test yet";
parentPort.on("message", (what) => { running = what; });
let seen = Atomics.load(ticks, 0);
let movedAt = Date.now();
setInterval(() => {
  const now = Atomics.load(ticks, 0);
  if (now !== seen) { seen = now; movedAt = Date.now(); return; }
  if (Date.now() - movedAt < workerData.hangMs) return;
  writeSync(2, "\\nHung: test worker " + process.pid + " has not come back to its event loop for " +
    Math.round((Date.now() - movedAt) / 1000) + " s, in " + running + ". Ending it.\\n");
  process.kill(process.pid, "SIGKILL");
}, Math.min(5_000, workerData.hangMs / 4));
`;

type Watchdog = { running: (what: string) => void };
const OFF: Watchdog = { running: () => {} };
const KEY = Symbol.for("jumbe.test.hang-watchdog");

/** The process's watchdog, started by its first test file (the files of a worker share the process). */
export function hangWatchdog(): Watchdog {
  const global = globalThis as { [KEY]?: Watchdog };
  if (global[KEY]) return global[KEY];
  const hangMs = hangLimitMs();
  if (hangMs === null) return (global[KEY] = OFF);
  const ticks = new Int32Array(new SharedArrayBuffer(4));
  const watcher = new Worker(WATCHER, { eval: true, execArgv: [], workerData: { ticks: ticks.buffer, hangMs } });
  watcher.unref();
  // The timers of node:timers, not the globals a test may replace with fake ones.
  setIntervalReal(() => Atomics.add(ticks, 0, 1), 1_000).unref();
  global[KEY] = { running: (what) => watcher.postMessage(what) };
  return global[KEY];
}

/**
 * Tells the watchdog which file and test are running: called by a setup file (each test file runs its
 * setup files again, while the modules they import are kept), so each file's hooks come from it.
 */
export function watchForHangs() {
  const watchdog = hangWatchdog();
  beforeAll(() => watchdog.running(`${expect.getState().testPath} (its beforeAll)`));
  beforeEach(() => watchdog.running(`${expect.getState().testPath} > ${expect.getState().currentTestName}`));
}
