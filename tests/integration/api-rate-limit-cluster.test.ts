import { afterAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";
import { getRequest, run } from "../support/http";
import { startClusterInstance, stopClusterInstances } from "../support/built-server";

// Two built servers on one PostgreSQL database share each key's limit of 1000 requests a minute.
// Runs in the PostgreSQL pass of `npm test`, which comes after the build.
const BUILD = "build/server/index.js";
const ready = !!process.env.TEST_DATABASE_URL && existsSync(BUILD);

const children: ChildProcess[] = [];
afterAll(() => stopClusterInstances(children));

async function startServer(databaseUrl: string) {
  const instance = await startClusterInstance(databaseUrl);
  children.push(instance.child);
  return instance.base;
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
