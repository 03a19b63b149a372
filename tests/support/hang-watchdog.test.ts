import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { hangLimitMs } from "./hang-watchdog";

// The watchdog (decision 179) in a process of its own: one that spins where no timer can fire is
// ended, its standard error naming the test it was in; one that comes back to its event loop is not.
function runChild(body: string) {
  const watchdog = path.resolve(import.meta.dirname, "hang-watchdog.ts");
  const script = `import { hangWatchdog } from ${JSON.stringify(watchdog)};
hangWatchdog().running("payments > pays once");
${body}`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...process.env, JUMBE_TEST_HANG_MS: "1500" },
    stdio: ["ignore", "ignore", "pipe"],
    // Never left spinning if the watchdog fails: ended then without its words, which the test reads.
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stderr })),
  );
}

it("ends a worker spinning inside one call, naming its test", async () => {
  const ended = await runChild("for (;;);");
  expect(ended.signal).toBe("SIGKILL");
  expect(ended.stderr).toMatch(
    /^Hung: test worker \d+ has not come back to its event loop for \d+ s, in payments > pays once\. Ending it\.$/m,
  );
});

it("leaves a worker alone that keeps coming back to its event loop, however long it takes", async () => {
  const ended = await runChild(
    "const until = Date.now() + 4_000; const step = () => { if (Date.now() < until) setTimeout(step, 200); }; step();",
  );
  expect(ended).toEqual({ code: 0, signal: null, stderr: "" });
});

it("reads its limit strictly: five minutes unless told, 0 for none, anything else refused", () => {
  expect(hangLimitMs(undefined)).toBe(300_000);
  expect(hangLimitMs("1500")).toBe(1500);
  expect(hangLimitMs("0")).toBeNull();
  for (const bad of ["five", "-1", "1.5"]) expect(() => hangLimitMs(bad)).toThrow(`JUMBE_TEST_HANG_MS is "${bad}"`);
});
