import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";

// Issue 9: two browser-test runs on one machine used the same port and data directory and failed
// each other. Each run now picks its own; its worker processes (which load the config again) must
// inherit the same ones, or the specs would talk to a server that is not there.

type Config = { webServer: { env: Record<string, string> }; use: { baseURL: string }; outputDir: string };
const made: string[] = [];

async function loadConfig(asWorkerOf?: NodeJS.ProcessEnv): Promise<Config> {
  delete process.env.JUMBE_E2E_PORT;
  delete process.env.JUMBE_E2E_DATA_DIR;
  if (asWorkerOf)
    Object.assign(process.env, { JUMBE_E2E_PORT: asWorkerOf.JUMBE_E2E_PORT, JUMBE_E2E_DATA_DIR: asWorkerOf.JUMBE_E2E_DATA_DIR });
  vi.resetModules();
  const config = (await import("../../playwright.config")).default as unknown as Config;
  made.push(config.webServer.env.DATA_DIR!);
  return config;
}

function canListen(port: number) {
  return new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

afterEach(() => {
  for (const dir of made.splice(0)) if (dir.startsWith(path.join(os.tmpdir(), "jumbe-e2e-"))) rmSync(dir, { recursive: true, force: true });
  delete process.env.JUMBE_E2E_PORT;
  delete process.env.JUMBE_E2E_DATA_DIR;
});

describe("Playwright configuration", () => {
  test("two runs get different free ports, fresh temporary data directories and output directories", async () => {
    const first = await loadConfig();
    const second = await loadConfig();
    const [a, b] = [first.webServer.env, second.webServer.env];
    expect(a.PORT).not.toBe(b.PORT);
    expect(a.DATA_DIR).not.toBe(b.DATA_DIR);
    expect(first.outputDir).not.toBe(second.outputDir);
    for (const [config, env] of [
      [first, a],
      [second, b],
    ] as const) {
      expect(config.use.baseURL).toBe(`http://127.0.0.1:${env.PORT}`);
      expect(env.APP_URL).toBe(config.use.baseURL);
      expect(await canListen(Number(env.PORT)), `port ${env.PORT} is free`).toBe(true);
      expect(path.dirname(env.DATA_DIR!)).toBe(os.tmpdir());
      expect(statSync(env.DATA_DIR!).isDirectory() && readdirSync(env.DATA_DIR!)).toEqual([]);
    }
  });

  test("a worker process, which loads the configuration again, keeps its run's port and directory", async () => {
    const main = await loadConfig();
    const mainEnv = { ...process.env };
    const worker = await loadConfig(mainEnv);
    expect(worker.webServer.env.PORT).toBe(main.webServer.env.PORT);
    expect(worker.webServer.env.DATA_DIR).toBe(main.webServer.env.DATA_DIR);
    expect(worker.use.baseURL).toBe(main.use.baseURL);
    expect(worker.outputDir).toBe(main.outputDir);
  });

  test("no browser spec or helper fixes a port or a data directory of its own", () => {
    const dir = "tests/e2e";
    const offenders: string[] = [];
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
      const text = readFileSync(path.join(dir, name), "utf8");
      for (const [i, line] of text.split("\n").entries()) {
        // A port constant, a server address with a fixed port (outside a quoted test input), or a /tmp path.
        if (
          /\bPORT\s*=\s*\d+|["'`/]\/?tmp\/|https?:\/\/(127\.0\.0\.1|localhost):\d+\/?["'`]/.test(line) ||
          /^const BASE(_URL)? = ["'`]http/.test(line)
        )
          offenders.push(`${name}:${i + 1}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
