import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { dispatchBatch, drainDispatcher, MAX_SEND_ATTEMPTS } from "~/.server/domains/messaging/dispatcher";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { getApiMessage } from "~/.server/adapters/api-v1/messages";
import {
  createGraphClient,
  GraphNetworkError,
  graphClient,
  type GraphClient,
} from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { startApiV1Server } from "../support/api-v1-server";
import { testDatabaseUrl } from "../support/database";
import { getRequest, run } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";
import {
  acceptsPerMessage,
  approvedTemplate,
  closedPort,
  dyingClient,
  leaseRunsOut,
  messageKeys,
  messageRows,
  metaReceived,
  queueTemplates,
  recipient,
  setBucketRate,
  settleStatuses,
  stallingProxy,
  startDispatcherProcess,
  untilAdopted,
  type Connected,
  type GraphSandbox,
} from "../support/sending-kit";
import { envelope, metaJson, startReceiver } from "../support/whatsapp";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { callbackDataOf } from "~/.server/domains/messaging/callback-data";
import { isDatabaseUnavailableError } from "~/.server/infrastructure/db/availability";

// The sending engine when things go wrong: a worker that dies mid-batch, the service window's edge
// with a controlled clock, Meta's temporary and permanent errors and an unreachable Meta, statuses
// in any order and twice, and one tenant's API key against another's messages. What counts is what
// Meta received (the sandbox's control/messages, Jumbe's message id echoed as
// biz_opaque_callback_data) and what Jumbe stored and shows.

let graph: GraphSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  graph = await startGraphSandbox({ webhookUrl: receiver.url, statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, throughputPerSecond: 0 });
});

afterAll(async () => {
  await graph.close();
  await receiver.close();
});

const useGraph = (base: string) =>
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: base, GRAPH_API_TIMEOUT_MS: "5000" }));

beforeEach(() => {
  useGraph(graph.graphBase);
  graph.sandbox.reset();
});

async function connectedTenant(name = "Baobab Microfinance", sandbox = graph): Promise<Connected> {
  const user = await createVerifiedUser({ businessName: name });
  const connection = await sandbox.connect(user.organization.id, name);
  return { organizationId: user.organization.id, wabaId: connection.wabaId, phoneNumberId: connection.phoneNumberId };
}

async function untilMetaHas(sandbox: GraphSandbox, phoneNumberId: string, n: number) {
  await vi.waitFor(async () => expect(await metaReceived(sandbox, phoneNumberId)).toHaveLength(n), { timeout: 30_000, interval: 20 });
}

async function claimState(ids: string[]) {
  const [row] = await rawQuery<{ locked: number; accepted: number; wamids: number }>(
    `select count(*) filter (where locked_until > now())::int as locked, count(accepted_at)::int as accepted, count(wamid)::int as wamids
     from messages where id = any($1::uuid[])`,
    [ids],
  );
  return row!;
}

/** One signed status webhook from Meta for the tenant's number, posted to the real receiver. */
async function metaPostsStatus(t: Connected, status: Record<string, unknown>) {
  const raw = metaJson(
    envelope([
      {
        id: t.wabaId,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "254700000000", phone_number_id: t.phoneNumberId },
              statuses: [status],
            },
          },
        ],
      },
    ]),
  );
  const response = await receiver.post(raw);
  expect(response.status).toBe(200);
}

describe("a worker killed mid-batch", () => {
  it("loses nothing and sends nothing twice: Meta's accepts come back by their status webhooks, the rest go after the lease", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    const ids = await queueTemplates(
      t.organizationId,
      Array.from({ length: 10 }, (_, i) => recipient(i)),
    );
    // The worker's first four sends reach Meta, then it hangs for good: its batch never settles.
    void dispatchBatch(dyingClient(graphClient(), 4));
    await untilMetaHas(graph, t.phoneNumberId, 4);
    expect(await claimState(ids)).toEqual({ locked: 10, accepted: 0, wamids: 0 });

    // Meta's status webhooks name each message (biz_opaque_callback_data): the four are adopted with
    // the wamids Meta gave them, and never claimed again.
    await untilAdopted(ids, 4);
    const atMeta = await metaReceived(graph, t.phoneNumberId);
    const adopted = await messageRows(atMeta.map((m) => m.callbackData!));
    for (const m of atMeta) expect(adopted.get(m.callbackData!)).toMatchObject({ wamid: m.wamid, locked_until: null });

    await leaseRunsOut(ids);
    await drainDispatcher();
    const received = await metaReceived(graph, t.phoneNumberId);
    expect(received).toHaveLength(10);
    const perMessage = acceptsPerMessage(received);
    expect([...perMessage.keys()].sort()).toEqual([...ids].sort());
    expect([...perMessage.values()].every((n) => n === 1)).toBe(true);
    await settleStatuses(ids, ["read"]);
  });

  it("sends again what Meta accepted when no status webhook came before the lease ran out (the at-least-once case of decision 022)", async () => {
    // A Meta whose status webhooks take ten minutes: none arrives while this test runs.
    const slow = await startGraphSandbox({
      webhookUrl: receiver.url,
      statusDelaysMs: { sent: 600_000, delivered: 600_000, read: 600_000 },
      throughputPerSecond: 0,
    });
    try {
      useGraph(slow.graphBase);
      const t = await connectedTenant("Kisima Water", slow);
      await approvedTemplate(slow, t);
      const ids = await queueTemplates(
        t.organizationId,
        Array.from({ length: 10 }, (_, i) => recipient(i)),
      );
      void dispatchBatch(dyingClient(graphClient(), 4));
      await untilMetaHas(slow, t.phoneNumberId, 4);
      const first = await metaReceived(slow, t.phoneNumberId);
      await drainJobs();
      expect(await claimState(ids)).toEqual({ locked: 10, accepted: 0, wamids: 0 });

      await leaseRunsOut(ids);
      await drainDispatcher();
      // Jumbe could not know Meta had the four: they went again. Meta holds 14 sends, the four twice.
      const received = await metaReceived(slow, t.phoneNumberId);
      expect(received).toHaveLength(14);
      const perMessage = acceptsPerMessage(received);
      const twice = [...perMessage].filter(([, n]) => n === 2).map(([id]) => id);
      expect(twice.sort()).toEqual(first.map((m) => m.callbackData!).sort());
      expect([...perMessage.values()].every((n) => n === 1 || n === 2)).toBe(true);

      // Jumbe keeps one message each, with the second send's wamid.
      const rows = await messageRows(ids);
      const second = new Map(received.slice(4).map((m) => [m.callbackData!, m.wamid]));
      for (const id of ids) expect(rows.get(id)).toMatchObject({ wamid: second.get(id), locked_until: null, status: "queued" });
      expect([...rows.values()].every((r) => r.accepted_at !== null)).toBe(true);

      // The first send's status arrives late, naming the message: it is kept under its own wamid and
      // does not take the message over (the message already has a wamid).
      const late = first[0]!;
      await metaPostsStatus(t, {
        id: late.wamid,
        status: "delivered",
        timestamp: String(Math.floor(Date.now() / 1000)),
        recipient_id: late.waId,
        biz_opaque_callback_data: late.callbackData,
      });
      await vi.waitFor(
        async () => {
          await drainJobs();
          expect(await rawQuery(`select status from message_statuses where wamid = $1`, [late.wamid])).toEqual([{ status: "delivered" }]);
        },
        { timeout: 30_000, interval: 20 },
      );
      expect((await messageRows([late.callbackData!])).get(late.callbackData!)).toMatchObject({
        wamid: second.get(late.callbackData!),
        status: "queued",
        delivered_at: null,
      });
    } finally {
      await slow.close();
    }
  });

  // A real kill needs the dispatcher in a process of its own on a database this process also
  // reaches: PostgreSQL only (PGlite lives inside this test process).
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "on PostgreSQL, a dispatcher process killed with SIGKILL mid-batch: nothing lost, nothing sent twice",
    async () => {
      const t = await connectedTenant("Nguvu Hardware");
      await approvedTemplate(graph, t);
      const ids = await queueTemplates(
        t.organizationId,
        Array.from({ length: 8 }, (_, i) => recipient(i)),
      );
      // Between the process and Meta: the first three sends reach Meta, no answer ever comes back,
      // and the other five never leave. The process is stuck in the middle of its batch.
      const proxy = await stallingProxy(graph.graphBase, 3);
      try {
        const child = await startDispatcherProcess(testDatabaseUrl()!, proxy.graphBase, 1);
        await vi.waitFor(() => expect(proxy.sendsSeen()).toBe(8), { timeout: 30_000, interval: 20 });
        await untilMetaHas(graph, t.phoneNumberId, 3);
        await child.kill();
        expect(await claimState(ids)).toEqual({ locked: 8, accepted: 0, wamids: 0 });
      } finally {
        await proxy.close();
      }
      await untilAdopted(ids, 3);
      await leaseRunsOut(ids);
      await drainDispatcher();
      const received = await metaReceived(graph, t.phoneNumberId);
      expect(received).toHaveLength(8);
      const perMessage = acceptsPerMessage(received);
      expect([...perMessage.keys()].sort()).toEqual([...ids].sort());
      expect([...perMessage.values()].every((n) => n === 1)).toBe(true);
      await settleStatuses(ids, ["read"]);
    },
    60_000,
  );
});

describe("the database gone in the middle of a round", () => {
  it("puts the round's untried messages back as soon as the database answers again, not after their lease, and sends each once", async () => {
    const t = await connectedTenant("Mvua Traders");
    await approvedTemplate(graph, t);
    const ids = await queueTemplates(
      t.organizationId,
      Array.from({ length: 6 }, (_, i) => recipient(i)),
    );
    // After the claim, the round's send-bucket statement fails as on a server shutting down (57P01),
    // the error a killed PgBouncer or PostgreSQL gives: the round ends before any call to Meta.
    await rawQuery(
      `create function test_database_gone() returns trigger language plpgsql as $$
       begin raise exception 'terminating connection due to administrator command' using errcode = '57P01'; end $$`,
    );
    await rawQuery(
      `create trigger test_database_gone before insert on sending_buckets for each statement execute function test_database_gone()`,
    );
    try {
      await expect(dispatchBatch()).rejects.toSatisfy(isDatabaseUnavailableError);
    } finally {
      await rawQuery(`drop trigger test_database_gone on sending_buckets`);
      await rawQuery(`drop function test_database_gone()`);
    }
    expect(await metaReceived(graph, t.phoneNumberId)).toEqual([]);
    expect(await claimState(ids)).toEqual({ locked: 6, accepted: 0, wamids: 0 });

    // The database answers again: the next round puts the claim back and sends, its 30 s lease unspent.
    await drainDispatcher();
    const perMessage = acceptsPerMessage(await metaReceived(graph, t.phoneNumberId));
    expect([...perMessage.keys()].sort()).toEqual([...ids].sort());
    expect([...perMessage.values()]).toEqual(ids.map(() => 1));
    // The lost round is no try of theirs.
    const rows = await messageRows(ids);
    expect(ids.map((id) => rows.get(id)!.attempts)).toEqual(ids.map(() => 1));
    await settleStatuses(ids, ["read"]);
  });
});

describe("a worker slower than its lease", () => {
  // Not a crash: Meta is slow. A batch with 64 calls in flight runs several calls in a row per slot;
  // at up to GRAPH_API_TIMEOUT_MS each, it could outlive its 30-second lease. The dispatcher starts no
  // call that could still run when the lease ends (the rest goes back untried: the next test).
  it("starts no send after the first round that could outlast its claim: the rest of the batch goes back untried", async () => {
    const t = await connectedTenant("Pole Pole Logistics");
    await approvedTemplate(graph, t);
    await setBucketRate(t.phoneNumberId, 1000);
    // The first round (64 calls in flight) always goes, so every claim makes progress; three more wait.
    const ids = (
      await queueTemplates(
        t.organizationId,
        Array.from({ length: 67 }, (_, i) => recipient(100 + i)),
      )
    ).slice(64);
    // A Graph timeout this long leaves no time in a 30-second claim for even one call.
    setEnv(
      parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "29000" }),
    );
    expect(await dispatchBatch()).toMatchObject({ claimed: 67, accepted: 64, deferred: 3 });
    expect(await metaReceived(graph, t.phoneNumberId)).toHaveLength(64);
    const back = await rawQuery<{ attempts: number; locked: boolean; due: boolean }>(
      `select attempts, locked_until is not null as locked, next_attempt_at <= now() as due from messages where id = any($1::uuid[])`,
      [ids],
    );
    expect(back).toEqual(ids.map(() => ({ attempts: 0, locked: false, due: true })));
    useGraph(graph.graphBase);
    await drainDispatcher();
    const accepts = acceptsPerMessage(await metaReceived(graph, t.phoneNumberId));
    expect(accepts.size).toBe(67);
    expect([...accepts.values()].every((n) => n === 1)).toBe(true);
  });

  // Calls already on their way when a lease runs out anyway (the settle itself held up longer than
  // the margin, or the clock standing in here): another worker claims them, and both send. The
  // at-least-once case beside decision 022's three; the slower one's wamid is kept.
  it("sends again what another worker took over after the lease (at-least-once), and keeps the last answer's wamid", async () => {
    const t = await connectedTenant("Subira Insurance");
    await approvedTemplate(graph, t);
    const ids = await queueTemplates(
      t.organizationId,
      Array.from({ length: 3 }, (_, i) => recipient(20 + i)),
    );
    const real = graphClient();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let waiting = 0;
    const slow: GraphClient = {
      ...real,
      sendMessage: async (phoneNumberId, token, body) => {
        waiting++;
        await gate;
        return real.sendMessage(phoneNumberId, token, body);
      },
    };
    const first = dispatchBatch(slow);
    await vi.waitFor(() => expect(waiting).toBe(3), { timeout: 30_000, interval: 10 });
    await leaseRunsOut(ids);
    const second = await dispatchBatch();
    expect(second).toMatchObject({ claimed: 3, accepted: 3 });
    const taken = await messageRows(ids);
    open();
    expect(await first).toMatchObject({ claimed: 3, accepted: 3 });

    const received = await metaReceived(graph, t.phoneNumberId);
    expect(received).toHaveLength(6);
    expect([...acceptsPerMessage(received).values()]).toEqual([2, 2, 2]);
    const rows = await messageRows(ids);
    const lastAnswer = new Map(received.slice(3).map((m) => [m.callbackData!, m.wamid]));
    for (const id of ids) {
      expect(rows.get(id)!.wamid).toBe(lastAnswer.get(id));
      expect(rows.get(id)!.wamid).not.toBe(taken.get(id)!.wamid);
    }
    await settleStatuses(ids, ["read"]);
  });
});

describe("a send in doubt (Meta accepted, its answer was lost)", () => {
  /** A client whose send reaches Meta and then times out, after `meanwhile` has run. */
  const timesOutAfterMeta = (meanwhile: (wamid: string) => Promise<void>): GraphClient => {
    const real = graphClient();
    return {
      ...real,
      sendMessage: async (phoneNumberId, token, body) => {
        const sent = await real.sendMessage(phoneNumberId, token, body);
        await meanwhile(sent.wamid);
        throw new GraphNetworkError("messages.send", "Graph messages.send timed out after 5000 ms", { inDoubt: true });
      },
    };
  };

  it("waits a minute for the status webhook, which settles it: never sent again, read, no error", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    const [id] = await queueTemplates(t.organizationId, [recipient(11)]);
    await dispatchBatch(timesOutAfterMeta(async () => {}));
    const [waiting] = await rawQuery<{ wait: number; status: string }>(
      `select extract(epoch from next_attempt_at - now())::float8 as wait, status from messages where id = $1`,
      [id],
    );
    expect(waiting!.status).toBe("queued");
    expect(waiting!.wait).toBeGreaterThan(55);

    await settleStatuses([id!], ["read"]);
    // The minute passes (next_attempt_at moved to now stands in for it): nothing is due any more.
    await rawQuery(`update messages set next_attempt_at = now() where id = $1`, [id]);
    expect(await drainDispatcher()).toBe(0);
    const received = await metaReceived(graph, t.phoneNumberId);
    expect(received).toHaveLength(1);
    expect((await messageRows([id!])).get(id!)).toMatchObject({
      status: "read",
      wamid: received[0]!.wamid,
      error_code: null,
      error_title: null,
    });
    expect((await getApiMessage(t.organizationId, id!)).error).toBeNull();
  });

  // Meta's `sent` webhook usually comes within a second, long before a send times out
  // (GRAPH_API_TIMEOUT_MS): the message is adopted and read before the timeout's retry is written,
  // which must then leave it alone (it stamped it with the error "send_failed" and a next try).
  it("a send whose status webhook came before the timeout stays read without an error", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    const [id] = await queueTemplates(t.organizationId, [recipient(12)]);
    await dispatchBatch(timesOutAfterMeta(() => settleStatuses([id!], ["read"])));
    expect(await metaReceived(graph, t.phoneNumberId)).toHaveLength(1);
    expect((await messageRows([id!])).get(id!)).toMatchObject({ status: "read", error_code: null, error_title: null });
  });
});

describe("the service window, with a controlled clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes free-form text until 24 hours after the customer's last message, then templates only, until they write again", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    // Meta's clock is the same controlled clock, so its window and Jumbe's agree.
    const meta = await startGraphSandbox({
      webhookUrl: receiver.url,
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
      now: () => Date.now(),
    });
    try {
      useGraph(meta.graphBase);
      const t = await connectedTenant("Saa Moja Bakery", meta);
      await approvedTemplate(meta, t);
      const customer = "254712345008";
      const text = (words: string): SendRequest => ({ to: `+${customer}`, content: { kind: "text", text: words }, source: "api" });
      const outbound = async () =>
        (await rawQuery<{ n: number }>(`select count(*)::int as n from messages where direction = 'outbound'`))[0]!.n;
      const customerWrites = async (n: number) => {
        await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: customer, name: "Achieng Otieno", text: "Habari" });
        await vi.waitFor(
          async () => {
            await drainJobs();
            const rows = await rawQuery(`select 1 from messages where direction = 'inbound'`);
            expect(rows).toHaveLength(n);
          },
          { timeout: 30_000, interval: 20 },
        );
        const [row] = await rawQuery<{ at: string }>(`select last_inbound_at as at from conversations`);
        return new Date(row!.at).getTime();
      };
      /** Queued by Jumbe, then accepted by Meta (whose window agrees). */
      const sent = async (request: SendRequest) => {
        const queued = await queueMessage(t.organizationId, request);
        await drainDispatcher();
        const row = (await messageRows([queued.id])).get(queued.id)!;
        expect(row).toMatchObject({ error_code: null });
        expect(row.wamid).toMatch(/^wamid\./);
        return queued;
      };
      const refusal = async (request: SendRequest) => {
        try {
          await queueMessage(t.organizationId, request);
        } catch (error) {
          if (isRefusal(error, "send")) return { status: error.status, code: error.code };
          throw error;
        }
        throw new Error("queued");
      };

      const wrote = await customerWrites(1);
      await sent(text("Karibu! Tumepokea oda yako."));

      vi.setSystemTime(wrote + 23 * 3600_000 + 59 * 60_000);
      await sent(text("Oda yako iko njiani."));

      vi.setSystemTime(wrote + 24 * 3600_000 + 1000);
      const before = await outbound();
      expect(await refusal(text("Umeipata?"))).toEqual({ status: 422, code: "outside_service_window" });
      expect(await outbound()).toBe(before);
      await sent({
        to: `+${customer}`,
        content: { kind: "template", template: { name: "payment_received", language: "en", parameters: ["KES 900"] } },
        source: "api",
      });

      const again = await customerWrites(2);
      expect(again).toBeGreaterThanOrEqual(wrote + 24 * 3600_000);
      await sent(text("Asante kwa kutuandikia tena."));
      expect(await outbound()).toBe(before + 2);
      expect(await metaReceived(meta, t.phoneNumberId)).toHaveLength(4);
    } finally {
      await meta.close();
    }
  });
});

describe("retries and backoff", () => {
  /** The wait before each message's next try, as Jumbe stored it, in seconds. */
  async function waits(ids: string[]) {
    const rows = await rawQuery<{ id: string; wait: number; attempts: number; status: string; error_code: number | null }>(
      `select id, extract(epoch from next_attempt_at - now())::float8 as wait, attempts, status, error_code from messages where id = any($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }
  /** The wait passes: the messages are due now (stands in for the clock). */
  const waitPasses = (ids: string[]) => rawQuery(`update messages set next_attempt_at = now() where id = any($1::uuid[])`, [ids]);

  it("tries Meta's throttling and temporary errors again later, each wait longer, and fails them after the last try", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    // 0429: 130429 throughput; 1056: 131056 pair rate; 0500: HTTP 500 with 131000.
    const ids = await queueTemplates(t.organizationId, ["+254711110429", "+254711111056", "+254711110500"]);
    const seen = new Map<string, number[]>(ids.map((id) => [id, []]));
    for (let attempt = 1; attempt < MAX_SEND_ATTEMPTS; attempt++) {
      await dispatchBatch();
      const now = await waits(ids);
      for (const id of ids) {
        const row = now.get(id)!;
        expect(row).toMatchObject({ status: "queued", attempts: attempt });
        expect(row.wait).toBeGreaterThan(0);
        seen.get(id)!.push(row.wait);
      }
      expect(ids.map((id) => now.get(id)!.error_code)).toEqual([130429, 131056, 131000]);
      await waitPasses(ids);
    }
    for (const id of ids) {
      const w = seen.get(id)!;
      // Each wait at least as long as the one before, and the last far longer than the first.
      for (let i = 1; i < w.length; i++) expect(w[i]!).toBeGreaterThanOrEqual(w[i - 1]! - 1);
      expect(w[w.length - 1]!).toBeGreaterThan(w[0]! * 10);
    }
    // The pair rate backs off faster than throughput (4^n against 2^n seconds).
    expect(seen.get(ids[1]!)![2]!).toBeGreaterThan(seen.get(ids[0]!)![2]! * 2);

    await dispatchBatch();
    const rows = await messageRows(ids);
    for (const [i, id] of ids.entries())
      expect(rows.get(id)).toMatchObject({ status: "failed", attempts: MAX_SEND_ATTEMPTS, error_code: [130429, 131056, 131000][i] });
    expect(graph.sandbox.calls().filter((c) => c.step === "messages.send")).toHaveLength(ids.length * MAX_SEND_ATTEMPTS);
    expect(await metaReceived(graph, t.phoneNumberId)).toEqual([]);
  });

  it("fails a permanent error at once with Meta's code and title", async () => {
    const t = await connectedTenant();
    // Approved in Jumbe, unknown at Meta: Meta answers 132001.
    await db()
      .insert(messageTemplates)
      .values({
        organizationId: t.organizationId,
        wabaId: t.wabaId,
        name: "gone_at_meta",
        language: "en",
        category: "UTILITY",
        status: "approved",
        components: [{ type: "BODY", text: "Hello {{1}}" }],
      });
    const [id] = await queueTemplates(t.organizationId, [recipient(1)], "gone_at_meta");
    await drainDispatcher();
    const row = (await messageRows([id!])).get(id!)!;
    expect(row).toMatchObject({
      status: "failed",
      attempts: 1,
      error_code: 132001,
      error_title: "Template name does not exist in the translation",
    });
    expect(row.error_details).toContain("gone_at_meta");
    expect(row.failed_at).not.toBeNull();
    expect(
      graph.sandbox
        .calls()
        .filter((c) => c.step === "messages.send")
        .map((c) => c.errorCode),
    ).toEqual([132001]);
  });

  it("tries an unreachable Meta a bounded number of times, waiting longer each time, then fails the message", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    const [id] = await queueTemplates(t.organizationId, [recipient(2)]);
    const nowhere: GraphClient = createGraphClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}/sandbox/meta/graph`,
      version: env().GRAPH_API_VERSION,
      appId: env().META_APP_ID,
      appSecret: env().META_APP_SECRET,
      timeoutMs: 2000,
    });
    const seen: number[] = [];
    let tries = 0;
    for (; tries < MAX_SEND_ATTEMPTS * 2; tries++) {
      await dispatchBatch(nowhere);
      const row = (await waits([id!])).get(id!)!;
      if (row.status !== "queued") break;
      expect(row.attempts).toBe(tries + 1);
      seen.push(row.wait);
      await waitPasses([id!]);
    }
    expect(tries + 1).toBe(MAX_SEND_ATTEMPTS);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    const row = (await messageRows([id!])).get(id!)!;
    expect(row).toMatchObject({ status: "failed", attempts: MAX_SEND_ATTEMPTS, error_code: null, error_title: "send_failed", wamid: null });
    expect(await metaReceived(graph, t.phoneNumberId)).toEqual([]);
  });
});

describe("statuses in any order and twice", () => {
  /** Meta's status webhook (`times` deliveries of it) through the real receiver and queue. */
  async function metaSays(t: Connected, wamid: string, status: string, at: number, extra: Record<string, unknown> = {}, times = 1) {
    for (let i = 0; i < times; i++)
      await metaPostsStatus(t, { id: wamid, status, timestamp: String(at), recipient_id: "254712345008", ...extra });
    await vi.waitFor(
      async () => {
        await drainJobs();
        const rows = await rawQuery(`select 1 from message_statuses where wamid = $1 and status = $2`, [wamid, status]);
        expect(rows).toHaveLength(1);
      },
      { timeout: 30_000, interval: 20 },
    );
  }

  it("never moves a message backwards, keeps each status's first time, and records Meta's pricing", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    // A client that answers as Meta does when it accepts: every status of this message comes from
    // the test, in the order it chooses.
    const [id] = await queueTemplates(t.organizationId, [recipient(3)]);
    const view = async () => (await messageRows([id!])).get(id!)!;
    const accepting: GraphClient = { ...graphClient(), sendMessage: async () => ({ wamid: "wamid.any-order", waId: "254710000038" }) };
    await dispatchBatch(accepting);
    expect(await view()).toMatchObject({ wamid: "wamid.any-order", status: "queued" });
    const base = 1_795_000_000;
    const pricing = { billable: true, pricing_model: "PMP", type: "regular", category: "marketing" };
    const iso = (s: number) => new Date(s * 1000).toISOString();

    await metaSays(t, "wamid.any-order", "read", base + 30);
    expect(await view()).toMatchObject({ status: "read" });
    await metaSays(t, "wamid.any-order", "delivered", base + 20, { pricing }, 2);
    await metaSays(t, "wamid.any-order", "delivered", base + 25, { pricing });
    await metaSays(t, "wamid.any-order", "sent", base + 10, { pricing });
    const row = await view();
    expect(row).toMatchObject({ status: "read", pricing_category: "marketing", pricing_type: "regular", billable: true });
    expect([row.sent_at, row.delivered_at, row.read_at].map((d) => new Date(d as string).toISOString())).toEqual([
      iso(base + 10),
      iso(base + 20),
      iso(base + 30),
    ]);
    // A failure after the read (another of the person's devices) keeps the message read, and its time.
    await metaSays(t, "wamid.any-order", "failed", base + 40, { errors: [{ code: 131026, title: "Message undeliverable" }] });
    const last = await view();
    expect(last.status).toBe("read");
    expect(new Date(last.failed_at as string).toISOString()).toBe(iso(base + 40));
    // One status row per status, however often Meta said it.
    expect(await rawQuery(`select status from message_statuses where wamid = 'wamid.any-order' order by status`)).toEqual([
      { status: "delivered" },
      { status: "failed" },
      { status: "read" },
      { status: "sent" },
    ]);
  });

  it("joins up statuses that arrive before Jumbe has recorded Meta's answer", async () => {
    const t = await connectedTenant();
    await approvedTemplate(graph, t);
    const [id] = await queueTemplates(t.organizationId, [recipient(4)]);
    const real = graphClient();
    // Meta accepts, its three status webhooks arrive and are written, and only then does the answer
    // reach Jumbe. Without Jumbe's id in the send, the statuses cannot name the message: only the
    // wamid of the late answer joins them up.
    const late: GraphClient = {
      ...real,
      sendMessage: async (phoneNumberId, token, body) => {
        const { biz_opaque_callback_data: _dropped, ...rest } = body;
        const sent = await real.sendMessage(phoneNumberId, token, rest);
        await vi.waitFor(
          async () => {
            await drainJobs();
            expect(await rawQuery(`select 1 from message_statuses where wamid = $1`, [sent.wamid])).toHaveLength(3);
          },
          { timeout: 30_000, interval: 20 },
        );
        expect((await messageRows([id!])).get(id!)).toMatchObject({ wamid: null, status: "queued" });
        return sent;
      },
    };
    await dispatchBatch(late);
    const row = (await messageRows([id!])).get(id!)!;
    expect(row).toMatchObject({ status: "read", billable: true, pricing_category: "utility", pricing_type: "regular" });
    expect(row.sent_at).not.toBeNull();
    expect(row.delivered_at).not.toBeNull();
    expect(row.read_at).not.toBeNull();
  });
});

describe("tenant separation in the public API", () => {
  let api: Awaited<ReturnType<typeof startApiV1Server>>;
  beforeAll(async () => {
    api = await startApiV1Server();
  });
  afterAll(async () => {
    await api.close();
  });

  async function apiTenant(name: string) {
    const t = await connectedTenant(name);
    await approvedTemplate(graph, t);
    const user = (await rawQuery<{ email: string }>(`select email from users where organization_id = $1`, [t.organizationId]))[0]!;
    const cookie = await signedInCookie(user.email, "Correct#Horse1");
    const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
    return { ...t, key };
  }
  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${api.base}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
    });
  const send = async (key: string, to: string) => {
    const response = await call(key, "/api/v1/messages", {
      method: "POST",
      body: JSON.stringify({ to, template: "payment_received", parameters: ["KES 10"] }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { id: string }).id;
  };

  it("answers 404 for another tenant's message and never lists it", async () => {
    useGraph(graph.graphBase);
    const a = await apiTenant("Amani Traders");
    const b = await apiTenant("Baraka Sacco");
    const shared = recipient(5);
    const aIds = [await send(a.key, shared), await send(a.key, recipient(6))];
    const bIds = [await send(b.key, shared)];
    await drainDispatcher();

    for (const id of aIds) {
      const theirs = await call(b.key, `/api/v1/messages/${id}`);
      expect(theirs.status).toBe(404);
      expect(await theirs.json()).toMatchObject({ code: "not_found" });
      expect((await call(a.key, `/api/v1/messages/${id}`)).status).toBe(200);
    }
    const list = async (key: string, query = "") => {
      const response = await call(key, `/api/v1/messages${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { data: { id: string }[]; nextCursor: string | null };
    };
    expect((await list(b.key)).data.map((m) => m.id)).toEqual(bIds);
    expect((await list(b.key, `?to=${encodeURIComponent(shared)}`)).data.map((m) => m.id)).toEqual(bIds);
    expect((await list(b.key, `?to=${encodeURIComponent(recipient(6))}`)).data).toEqual([]);
    // B cannot point a reply at A's message either: as if it did not exist, and nothing is stored.
    const reply = await call(b.key, "/api/v1/messages", {
      method: "POST",
      body: JSON.stringify({ to: shared, template: "payment_received", parameters: ["KES 10"], replyTo: aIds[0] }),
    });
    expect(reply.status).toBe(404);
    expect(await reply.json()).toMatchObject({ code: "not_found" });
    expect((await list(b.key)).data.map((m) => m.id)).toEqual(bIds);
    // Page by page too.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(a.key, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      paged.push(...page.data.map((m) => m.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged.sort()).toEqual([...aIds].sort());
  });

  it("takes no message of another tenant from a status webhook that names it", async () => {
    const a = await connectedTenant("Amani Traders");
    const b = await connectedTenant("Baraka Sacco");
    await approvedTemplate(graph, b);
    const [theirs] = await queueTemplates(b.organizationId, [recipient(8)]);
    const [theirKey] = await messageKeys([theirs!]);
    // Statuses on A's number for wamids A never sent, naming B's queued message by its id (as sends
    // before decision 183 did) and by its whole key (as Jumbe's sends now do).
    await metaPostsStatus(a, {
      id: "wamid.not-yours",
      status: "read",
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: "254710000088",
      biz_opaque_callback_data: theirs,
    });
    await metaPostsStatus(a, {
      id: "wamid.not-yours-either",
      status: "read",
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: "254710000088",
      biz_opaque_callback_data: callbackDataOf(theirKey!),
    });
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect(
          await rawQuery(`select wamid, organization_id from message_statuses where wamid like 'wamid.not-yours%' order by wamid`),
        ).toEqual([
          { wamid: "wamid.not-yours", organization_id: a.organizationId },
          { wamid: "wamid.not-yours-either", organization_id: a.organizationId },
        ]);
      },
      { timeout: 30_000, interval: 20 },
    );
    expect((await messageRows([theirs!])).get(theirs!)).toMatchObject({ status: "queued", wamid: null, accepted_at: null });
    // B's message still goes, once.
    await drainDispatcher();
    expect(acceptsPerMessage(await metaReceived(graph, b.phoneNumberId)).get(theirs!)).toBe(1);
  });
});
