import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { closeDatabase, openDatabase, rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { dispatchBatch, drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createVerifiedUser } from "../support/accounts";
import { startGraphSandbox } from "../support/sandbox-waba";
import {
  acceptsPerMessage,
  approvedTemplate,
  metaReceived,
  leaseRunsOut,
  queueTemplates,
  recipient,
  stallingProxy,
  startDispatcherProcess,
  untilAdopted,
  type GraphSandbox,
} from "../support/sending-kit";
import { startReceiver } from "../support/whatsapp";

registerJobHandlers();

// Issue 38, item 3: on the embedded database (the default), a sending process killed with SIGKILL
// while its calls to Meta were on their way, then started again on the same data folder: nobody
// gets the message twice. The calls it had started are on disk before they left; the restarted
// worker leaves those messages until Meta's status webhooks (which name them, and which Meta
// delivers again once Jumbe answers) settle them, and sends the rest, once.

const dataDir = mkdtempSync(path.join(tmpdir(), "jumbe-crash-pglite-"));
let graph: GraphSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  graph = await startGraphSandbox({
    webhookUrl: receiver.url,
    statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
    throughputPerSecond: 0,
    // While no process holds the database, Jumbe refuses Meta's webhooks and Meta delivers them again.
    webhookRetry: { attempts: 40, baseDelayMs: 100 },
  });
  // This file's database is a folder on disk, which the killed process also opens.
  await closeDatabase();
  await openDatabase({ dataDir });
});

afterAll(async () => {
  await graph.close();
  await receiver.close();
  await closeDatabase();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000" }));
  graph.sandbox.reset();
});

describe.skipIf(!!process.env.TEST_DATABASE_URL)("a sending process killed mid-batch on PGlite", () => {
  it("sends nobody a message twice after a restart on the same data folder, and loses nobody", { timeout: 120_000 }, async () => {
    const user = await createVerifiedUser({ businessName: "Mvua Agrovet" });
    const t = { organizationId: user.organization.id, ...(await graph.connect(user.organization.id, "Mvua")) };
    await approvedTemplate(graph, t, "payment_received");
    const ids = await queueTemplates(
      t.organizationId,
      Array.from({ length: 8 }, (_, i) => recipient(i)),
    );
    // The process holding the database: its first three sends reach Meta and their answers never
    // come back, the other five never leave. It is killed in the middle of its batch.
    await closeDatabase();
    const proxy = await stallingProxy(graph.graphBase, 3);
    try {
      const child = await startDispatcherProcess(`pglite:${dataDir}`, proxy.graphBase, 1);
      await vi.waitFor(() => expect(proxy.sendsSeen()).toBe(8), { timeout: 30_000, interval: 20 });
      await vi.waitFor(async () => expect(await metaReceived(graph, t.phoneNumberId)).toHaveLength(3), { timeout: 30_000, interval: 20 });
      await child.kill();
    } finally {
      await proxy.close();
    }

    // Started again on the same folder, more than the 30-second lease later (the claim's end moved
    // back stands in for the time), before Meta's webhooks have been taken in: nothing goes again.
    await openDatabase({ dataDir });
    await rawQuery(`update messages set locked_until = locked_until - interval '31 seconds' where id = any($1::uuid[])`, [ids]);
    expect((await dispatchBatch()).accepted).toBe(0);
    expect(await metaReceived(graph, t.phoneNumberId)).toHaveLength(3);

    // Meta delivers its status webhooks again now that Jumbe answers: the three are settled by them.
    await untilAdopted(ids, 3);
    // Once the in-doubt hold is over, the five Meta never had go, once.
    await leaseRunsOut(ids);
    await drainDispatcher();
    const received = await metaReceived(graph, t.phoneNumberId);
    expect(received).toHaveLength(8);
    const counts = acceptsPerMessage(received);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });
});
