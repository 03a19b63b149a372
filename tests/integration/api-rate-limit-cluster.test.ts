import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";
import { getRequest, run } from "../support/http";

// Two built servers on one PostgreSQL database share each key's limit of 1000 requests a minute.
// Runs in the PostgreSQL pass of `npm test`, which comes after the build.
const BUILD = "build/server/index.js";
const ready = !!process.env.TEST_DATABASE_URL && existsSync(BUILD);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once("exit", resolve)))));
});

async function startServer(databaseUrl: string) {
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
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return base;
    } catch {
      // starting
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("server did not start");
}

describe.skipIf(!ready)("API rate limit across server processes", () => {
  it("lets 1000 calls a minute through in total, however they are spread over two servers", async () => {
    const url = testDatabaseUrl()!;
    const account = await createVerifiedUser({ businessName: "Two Servers Ltd" });
    const cookie = await signedInCookie(account.email, account.password);
    const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
    const servers = await Promise.all([startServer(url), startServer(url)]);

    const statuses = new Map<number, number>();
    const perServer = [0, 0];
    let retryAfter = 0;
    let next = 0;
    const total = 1100;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) {
          const i = next++;
          const response = await fetch(`${servers[i % 2]}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status === 200) perServer[i % 2]!++;
          if (response.status === 429) retryAfter = Number(response.headers.get("retry-after"));
        }
      }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1000, 429: 100 });
    expect(perServer[0]).toBeGreaterThan(300);
    expect(perServer[1]).toBeGreaterThan(300);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  }, 120_000);
});
