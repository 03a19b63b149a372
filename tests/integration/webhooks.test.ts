import { createHmac } from "node:crypto";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { db, type Executor } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import {
  activityLogs,
  contacts,
  messageStatuses,
  messages,
  webhookEvents,
  webhookUnroutedChanges,
  whatsappAccounts,
  whatsappPhoneNumbers,
} from "~/.server/infrastructure/db/schema";
import { claimJobs } from "~/.server/infrastructure/jobs/queue";
import { drainJobs, registerJobHandler, runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { WEBHOOK_QUEUE } from "~/.server/adapters/webhooks-in/ingest";
import { enqueueJob } from "~/.server/infrastructure/jobs/queue";
import { REPLAY_UNROUTED_QUEUE } from "~/.server/domains/whatsapp/embedded-signup";
import { env } from "~/.server/infrastructure/config/env";
import { createVerifiedUser } from "../support/accounts";
import { applyKeptStatuses } from "~/.server/domains/messaging/statuses";
import { LATE_STATUSES_QUEUE } from "~/.server/domains/messaging/late-statuses";
import { testDatabaseUrl } from "../support/database";
import { connectedNumber, envelope, inboundChange, metaJson, sign, startReceiver, statusChange } from "../support/whatsapp";

const A = { wabaId: "102290129340398", phoneNumberId: "106540352242922", display: "+254 711 000 101" };
const B = { wabaId: "202290129340399", phoneNumberId: "206540352242923", display: "+254 722 000 202" };
const digits = (d: string) => d.replace(/\D/g, "");

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

async function tenant(name: string, ids: typeof A) {
  const { organization } = await createVerifiedUser({ businessName: name });
  await connectedNumber(organization.id, ids);
  return organization.id;
}

describe("webhook verification handshake", () => {
  it("answers the challenge only for the configured verify token", async () => {
    const ok = await fetch(`${receiver.url}?hub.mode=subscribe&hub.verify_token=jumbe-sandbox-verify-token&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    const wrong = await fetch(`${receiver.url}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444`);
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain("1158201444");
  });
});

describe("signatures", () => {
  it("refuses a missing, malformed or wrong signature with 401 and stores nothing", async () => {
    const raw = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.X", status: "sent", timestamp: 1750030073 }])],
        },
      ]),
    );
    expect((await receiver.post(raw, null)).status).toBe(401);
    expect((await receiver.post(raw, "sha256=nothex")).status).toBe(401);
    expect((await receiver.post(raw, sign(raw, "another-apps-secret"))).status).toBe(401);
    // Signed for different bytes: one character changed after signing.
    expect((await receiver.post(raw.replace("sent", "read"), sign(raw))).status).toBe(401);
    expect(await db().select().from(webhookEvents)).toHaveLength(0);
  });

  it("checks the exact bytes: emoji and Swahili accents escaped as Meta escapes them", async () => {
    const org = await tenant("Duka la Amina", A);
    const text = "Habari ya asubuhi — karibu sana! 😀 Ñ é ü";
    const raw = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [
            inboundChange(A.phoneNumberId, digits(A.display), {
              id: "wamid.EMOJI1",
              from: "254712345678",
              name: "Amina Wanjiku 🌍",
              text,
              timestamp: 1750030073,
            }),
          ],
        },
      ]),
    );
    expect(raw).toContain("\\ud83d\\ude00");
    expect(raw).not.toContain("😀");
    // Re-serialising the parsed body gives different bytes, so a check over those would fail.
    expect(JSON.stringify(JSON.parse(raw))).not.toBe(raw);

    const response = await receiver.post(raw);
    expect(response.status).toBe(200);
    const [stored] = await db().select().from(webhookEvents);
    expect(stored!.body).toBe(raw);

    await drainJobs();
    const [message] = await db().select().from(messages).where(eq(messages.organizationId, org));
    expect(message).toMatchObject({ body: text, direction: "inbound", wamid: "wamid.EMOJI1", messageType: "text", status: "received" });
    const [contact] = await db().select().from(contacts).where(eq(contacts.organizationId, org));
    expect(contact).toMatchObject({ name: "Amina Wanjiku 🌍", waId: "254712345678", phone: "+254712345678" });
  });

  it("refuses a signed body with a raw NUL byte or bytes that are not UTF-8 (400), so the deliveries stored with it are not held up", async () => {
    const org = await tenant("Tenant A", A);
    const good = (i: number) =>
      metaJson(
        envelope([
          {
            id: A.wabaId,
            changes: [
              inboundChange(A.phoneNumberId, digits(A.display), {
                id: `wamid.G${i}`,
                from: "254712345678",
                name: "Amina",
                text: `Habari ${i}`,
                timestamp: 1750030100 + i,
              }),
            ],
          },
        ]),
      );
    const post = (bytes: Buffer) =>
      fetch(receiver.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Hub-Signature-256": `sha256=${createHmac("sha256", env().META_APP_SECRET).update(bytes).digest("hex")}`,
        },
        body: new Uint8Array(bytes),
      });
    // A raw NUL byte (JSON allows it only escaped, which the cleaning handles) breaks a text column.
    const withNul = Buffer.from(good(100).replace("Habari 100", "Habari\u0000raw"));
    expect(withNul.includes(0)).toBe(true);
    // A UTF-8-encoded lone surrogate: not UTF-8.
    const notUtf8 = Buffer.concat([Buffer.from(good(101).slice(0, -3)), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(good(101).slice(-3))]);
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => post(Buffer.from(good(i)))),
      post(withNul),
      post(notUtf8),
      ...Array.from({ length: 10 }, (_, i) => post(Buffer.from(good(10 + i)))),
    ]);
    expect(answers.map((r) => r.status)).toEqual([...Array(10).fill(200), 400, 400, ...Array(10).fill(200)]);
    expect(await answers[10]!.json()).toEqual({ message: "The body is not UTF-8 JSON text." });
    expect(await db().select().from(webhookEvents)).toHaveLength(20);
    await drainJobs();
    expect(await db().select().from(messages).where(eq(messages.organizationId, org))).toHaveLength(20);
  });
});

describe("processing", () => {
  it("handles every entry and every change of a batch, each for its own tenant", async () => {
    const orgA = await tenant("Tenant A", A);
    const orgB = await tenant("Tenant B", B);
    const raw = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [
            statusChange(A.phoneNumberId, digits(A.display), [
              { id: "wamid.A1", status: "sent", timestamp: 1750030001 },
              { id: "wamid.A2", status: "delivered", timestamp: 1750030002 },
            ]),
            inboundChange(A.phoneNumberId, digits(A.display), {
              id: "wamid.IN-A",
              from: "254700000001",
              name: "Otieno",
              text: "Asante",
              timestamp: 1750030003,
            }),
          ],
        },
        {
          id: B.wabaId,
          changes: [statusChange(B.phoneNumberId, digits(B.display), [{ id: "wamid.B1", status: "read", timestamp: 1750030004 }])],
        },
      ]),
    );
    expect((await receiver.post(raw)).status).toBe(200);
    await drainJobs();

    const statusesOf = async (org: string) =>
      (await db().select().from(messageStatuses).where(eq(messageStatuses.organizationId, org)))
        .map((s) => `${s.wamid}:${s.status}`)
        .sort();
    expect(await statusesOf(orgA)).toEqual(["wamid.A1:sent", "wamid.A2:delivered"]);
    expect(await statusesOf(orgB)).toEqual(["wamid.B1:read"]);
    expect(await db().select().from(messages).where(eq(messages.organizationId, orgB))).toHaveLength(0);
    expect(await db().select().from(messages).where(eq(messages.organizationId, orgA))).toHaveLength(1);
    const [event] = await db().select().from(webhookEvents);
    expect(event).toMatchObject({ outcome: "processed" });
    expect(event!.processedAt).not.toBeNull();
  });

  it("processes duplicate and out-of-order deliveries once, and never moves a status backwards", async () => {
    const org = await tenant("Tenant A", A);
    await db()
      .insert(messages)
      .values({ organizationId: org, direction: "outbound", status: "accepted", body: "Your order has shipped", wamid: "wamid.OUT1" });
    const delivery = (status: string, ts: number) =>
      metaJson(
        envelope([
          { id: A.wabaId, changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.OUT1", status, timestamp: ts }])] },
        ]),
      );
    const inbound = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [
            inboundChange(A.phoneNumberId, digits(A.display), {
              id: "wamid.DUP",
              from: "254700000002",
              name: "Wanjiru",
              text: "Niko hapa",
              timestamp: 1750030100,
            }),
          ],
        },
      ]),
    );
    // read arrives first, then delivered twice, then sent, then the inbound message three times.
    for (const raw of [
      delivery("read", 1750030090),
      delivery("delivered", 1750030080),
      delivery("delivered", 1750030080),
      delivery("sent", 1750030070),
      inbound,
      inbound,
      inbound,
    ]) {
      expect((await receiver.post(raw)).status).toBe(200);
      // Processing between deliveries, and all at once below: both orders must give one result.
      if (raw === inbound) await drainJobs();
    }
    await drainJobs();

    const [message] = await db().select().from(messages).where(eq(messages.wamid, "wamid.OUT1"));
    expect(message!.status).toBe("read");
    const statuses = await db().select().from(messageStatuses).where(eq(messageStatuses.wamid, "wamid.OUT1"));
    expect(statuses.map((s) => s.status).sort()).toEqual(["delivered", "read", "sent"]);
    expect(await db().select().from(messages).where(eq(messages.wamid, "wamid.DUP"))).toHaveLength(1);
    expect(await db().select().from(contacts).where(eq(contacts.organizationId, org))).toHaveLength(1);
    expect(await db().select().from(webhookEvents)).toHaveLength(7);
  });

  it("never moves a status backwards when each delivery is processed before the next arrives", async () => {
    // Issue 10: the test above also processes everything in one batch, where the batch's own
    // ordering hides a missing guard across batches. Here every delivery is a job of its own.
    const org = await tenant("Tenant A", A);
    await db().insert(messages).values({
      organizationId: org,
      direction: "outbound",
      status: "accepted",
      body: "Your M-Pesa payment of KES 1,250 was received",
      wamid: "wamid.OUT2",
    });
    const delivery = (status: string, ts: number) =>
      metaJson(
        envelope([
          { id: A.wabaId, changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.OUT2", status, timestamp: ts }])] },
        ]),
      );
    const seen: string[] = [];
    for (const [status, ts] of [
      ["delivered", 1750030180],
      ["read", 1750030190],
      ["delivered", 1750030180],
      ["sent", 1750030170],
    ] as const) {
      expect((await receiver.post(delivery(status, ts))).status).toBe(200);
      await drainJobs();
      const [message] = await db().select().from(messages).where(eq(messages.wamid, "wamid.OUT2"));
      seen.push(message!.status);
    }
    expect(seen).toEqual(["delivered", "read", "read", "read"]);
  });

  it("keeps a status for a message Jumbe does not know yet", async () => {
    const org = await tenant("Tenant A", A);
    const raw = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.FUTURE", status: "failed", timestamp: 1750030200 }])],
        },
      ]),
    );
    expect((await receiver.post(raw)).status).toBe(200);
    await drainJobs();
    const [kept] = await db()
      .select()
      .from(messageStatuses)
      .where(and(eq(messageStatuses.organizationId, org), eq(messageStatuses.wamid, "wamid.FUTURE")));
    expect(kept).toMatchObject({ status: "failed", phoneNumberId: A.phoneNumberId, recipientId: "254712345678" });
    expect(kept!.occurredAt.toISOString()).toBe(new Date(1750030200 * 1000).toISOString());
  });

  it("keeps changes for a WABA nobody has connected yet and applies them once it is connected", async () => {
    const partnerAdded = metaJson(
      envelope([
        {
          id: "999000111222333",
          time: 1750030300,
          changes: [
            {
              field: "account_update",
              value: { event: "PARTNER_ADDED", waba_info: { waba_id: A.wabaId, owner_business_id: "2729063490586005" } },
            },
          ],
        },
      ]),
    );
    expect((await receiver.post(partnerAdded)).status).toBe(200);
    await drainJobs();
    expect(await db().select().from(webhookUnroutedChanges)).toHaveLength(1);

    const org = await tenant("Late Tenant", A);
    await enqueueJob(REPLAY_UNROUTED_QUEUE, { wabaId: A.wabaId });
    await drainJobs();
    expect(await db().select().from(webhookUnroutedChanges)).toHaveLength(0);
    const [account] = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.organizationId, org));
    expect(account).toMatchObject({ accountEvent: "PARTNER_ADDED" });
    const logged = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, org), eq(activityLogs.action, "Meta confirmed the WhatsApp connection")));
    expect(logged).toHaveLength(1);
  });

  it("applies a quality update for the number it names and ignores an older one that arrives late", async () => {
    const org = await tenant("Tenant A", A);
    const quality = (event: string, time: number, limit: string) =>
      metaJson(
        envelope([
          {
            id: A.wabaId,
            time,
            changes: [
              { field: "phone_number_quality_update", value: { display_phone_number: digits(A.display), event, current_limit: limit } },
            ],
          },
        ]),
      );
    expect((await receiver.post(quality("FLAGGED", 1750030500, "TIER_2K"))).status).toBe(200);
    expect((await receiver.post(quality("UPGRADE", 1750030400, "TIER_1K"))).status).toBe(200);
    expect((await receiver.post(quality("FLAGGED", 1750030500, "TIER_2K"))).status).toBe(200);
    // Refreshing from Graph is a job of its own; only webhook processing runs here.
    for (let i = 0; i < 5; i++) await runJobBatch(WEBHOOK_QUEUE);
    const [phone] = await db().select().from(whatsappPhoneNumbers).where(eq(whatsappPhoneNumbers.organizationId, org));
    expect(phone).toMatchObject({ qualityEvent: "FLAGGED", messagingLimit: "TIER_2K" });
    const logged = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, org), eq(activityLogs.action, "WhatsApp number quality update")));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ status: "warning", details: "+254 711 000 101: FLAGGED (messaging limit TIER_2K)" });
  });

  it("keeps a delivery that is not a WhatsApp envelope, marked invalid, without failing the others", async () => {
    const org = await tenant("Tenant A", A);
    expect((await receiver.post("this is not json")).status).toBe(200);
    const good = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.OK", status: "sent", timestamp: 1750030600 }])],
        },
      ]),
    );
    expect((await receiver.post(good)).status).toBe(200);
    await drainJobs();
    const outcomes = (await db().select().from(webhookEvents)).map((e) => e.outcome).sort();
    expect(outcomes).toEqual(["invalid", "processed"]);
    expect(await db().select().from(messageStatuses).where(eq(messageStatuses.organizationId, org))).toHaveLength(1);
  });
});

describe("durability", () => {
  it("loses nothing when the worker dies between acknowledgement and processing", async () => {
    const org = await tenant("Tenant A", A);
    const raws = Array.from({ length: 20 }, (_, i) =>
      metaJson(
        envelope([
          {
            id: A.wabaId,
            changes: [
              statusChange(A.phoneNumberId, digits(A.display), [{ id: `wamid.C${i}`, status: "delivered", timestamp: 1750031000 + i }]),
            ],
          },
        ]),
      ),
    );
    const answers = await Promise.all(raws.map((raw) => receiver.post(raw)));
    expect(answers.every((a) => a.status === 200)).toBe(true);

    // A worker claims the jobs and dies before committing: its lease is all that is left of it.
    const claimed = await claimJobs(WEBHOOK_QUEUE, 100, 60_000);
    expect(claimed.length).toBeGreaterThan(0);
    expect(await runJobBatch(WEBHOOK_QUEUE)).toBe(0); // leased: nobody else takes them yet
    await db().execute(sql`update jobs set locked_until = now() - interval '1 second'`); // the lease runs out

    await drainJobs();
    expect(await db().select().from(messageStatuses).where(eq(messageStatuses.organizationId, org))).toHaveLength(20);
    const [left] = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from jobs where finished_at is null`);
    expect(left!.n).toBe(0);
  });

  it("rolls back a batch that fails half-way and retries it until it succeeds", async () => {
    const org = await tenant("Tenant A", A);
    let failures = 1;
    const { processWebhookJobs } = await import("~/.server/adapters/webhooks-in/process");
    registerJobHandler<{ eventIds: number[] }>({
      queue: WEBHOOK_QUEUE,
      batchSize: 20,
      maxAttempts: 5,
      async run(jobs, tx) {
        await processWebhookJobs(jobs, tx);
        if (failures-- > 0) throw new Error("crash after the writes, before the commit");
      },
    });
    const raw = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.R1", status: "sent", timestamp: 1750032000 }])],
        },
      ]),
    );
    expect((await receiver.post(raw)).status).toBe(200);
    await runJobBatch(WEBHOOK_QUEUE);
    expect(await db().select().from(messageStatuses).where(eq(messageStatuses.organizationId, org))).toHaveLength(0);
    const [job] = await queryRows<{ attempts: number; last_error: string }>(db(), sql`select attempts, last_error from jobs`);
    expect(job).toMatchObject({ attempts: 1, last_error: "crash after the writes, before the commit" });
    await db().execute(sql`update jobs set run_at = now()`); // skip the backoff
    await drainJobs();
    expect(await db().select().from(messageStatuses).where(eq(messageStatuses.organizationId, org))).toHaveLength(1);
    const { registerJobHandlers } = await import("~/.server/composition/job-handlers");
    registerJobHandlers();
  });
});

describe("poisoned deliveries", () => {
  const inboundRaw = (i: number, text: string) =>
    metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [
            inboundChange(A.phoneNumberId, digits(A.display), {
              id: `wamid.P${i}`,
              from: `2547000${String(i).padStart(5, "0")}`,
              name: `Mteja ${i}`,
              text,
              timestamp: 1750040000 + i,
            }),
          ],
        },
      ]),
    );

  it("stores text PostgreSQL cannot hold cleaned, and the deliveries committed with it still apply", async () => {
    const org = await tenant("Tenant A", A);
    const raws = Array.from({ length: 60 }, (_, i) =>
      inboundRaw(i, i === 17 ? "nul\u0000here" : i === 42 ? "lone \ud800 surrogate" : `Habari ${i}`),
    );
    expect(raws[17]).toContain("\\u0000");
    expect(raws[42]).toContain("\\ud800");
    const { storeDeliveries } = await import("~/.server/adapters/webhooks-in/ingest");
    await storeDeliveries(
      raws,
      raws.map((raw) => sign(raw)),
    );
    const [{ n: jobs } = { n: 0 }] = await queryRows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from jobs where queue = ${WEBHOOK_QUEUE} and finished_at is null`,
    );
    expect(jobs).toBe(1);

    await drainJobs();
    const events = await db().select().from(webhookEvents);
    expect(events).toHaveLength(60);
    expect(events.every((e) => e.outcome === "processed" && e.processedAt)).toBe(true);
    const stored = await db().select().from(messages).where(eq(messages.organizationId, org));
    expect(stored).toHaveLength(60);
    const byWamid = new Map(stored.map((m) => [m.wamid, m.body]));
    expect(byWamid.get("wamid.P0")).toBe("Habari 0");
    expect(byWamid.get("wamid.P17")).toBe("nulhere");
    expect(byWamid.get("wamid.P42")).toBe("lone \ufffd surrogate");
    const [left] = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from jobs where finished_at is null`);
    expect(left!.n).toBe(0);
  });

  it("marks one delivery that cannot be applied failed and applies the others of its job", async () => {
    const org = await tenant("Tenant A", A);
    // A trigger stands in for any fault that concerns one delivery only.
    await db().execute(
      sql.raw(`
      create function refuse_boom() returns trigger language plpgsql as $$
      begin if new.wamid = 'wamid.P5' then raise exception 'refused for the test'; end if; return new; end $$`),
    );
    await db().execute(sql.raw(`create trigger refuse_boom before insert on messages for each row execute function refuse_boom()`));
    try {
      const raws = Array.from({ length: 10 }, (_, i) => inboundRaw(i, `Habari ${i}`));
      const { storeDeliveries } = await import("~/.server/adapters/webhooks-in/ingest");
      await storeDeliveries(
        raws,
        raws.map((raw) => sign(raw)),
      );
      await drainJobs();
      const events = await db().select().from(webhookEvents).orderBy(webhookEvents.id);
      expect(events.map((e) => e.outcome)).toEqual([
        "processed",
        "processed",
        "processed",
        "processed",
        "processed",
        "failed",
        "processed",
        "processed",
        "processed",
        "processed",
      ]);
      expect(events.every((e) => e.processedAt)).toBe(true);
      const stored = await db().select().from(messages).where(eq(messages.organizationId, org));
      expect(stored.map((m) => m.wamid).sort()).toEqual([
        "wamid.P0",
        "wamid.P1",
        "wamid.P2",
        "wamid.P3",
        "wamid.P4",
        "wamid.P6",
        "wamid.P7",
        "wamid.P8",
        "wamid.P9",
      ]);
      const [left] = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from jobs where finished_at is null`);
      expect(left!.n).toBe(0);
    } finally {
      await db().execute(sql.raw(`drop trigger refuse_boom on messages`));
      await db().execute(sql.raw(`drop function refuse_boom()`));
    }
  });
});

/** One delivery of a customer's message to number A, as Meta sends it. */
const deliveryToA = (message: Parameters<typeof inboundChange>[2]) =>
  metaJson(envelope([{ id: A.wabaId, changes: [inboundChange(A.phoneNumberId, digits(A.display), message)] }]));

/** Deliveries stored as the receiver stores them (one job); answers their event ids, oldest first. */
async function stored(raws: string[]) {
  const { storeDeliveries } = await import("~/.server/adapters/webhooks-in/ingest");
  const before = new Set((await db().select().from(webhookEvents)).map((e) => e.id));
  await storeDeliveries(
    raws,
    raws.map((raw) => sign(raw)),
  );
  return (await db().select().from(webhookEvents).orderBy(webhookEvents.id)).map((e) => e.id).filter((id) => !before.has(id));
}

/** Until one transaction waits for an advisory lock of `space` (16016 the inbox's change log, 16017 a person). */
async function waitingForLock(space: number) {
  await vi.waitFor(
    async () => {
      const [waiting] = await queryRows<{ n: number }>(
        db(),
        sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = ${space} and not granted`,
      );
      expect(waiting!.n).toBe(1);
    },
    { timeout: 30_000, interval: 20 },
  );
}

/** The webhook queue's handler over `eventIds` in `tx`, as the worker runs it. */
async function processIn(tx: Executor, eventIds: number[], jobId = 1) {
  const { processWebhookJobs } = await import("~/.server/adapters/webhooks-in/process");
  await processWebhookJobs([{ id: jobId, queue: WEBHOOK_QUEUE, payload: { eventIds }, attempts: 1 }], tx);
}

describe("faults of the moment", () => {
  it("does not mark a delivery failed for a fault of the moment (deadlock, serialization): the job is retried instead", async () => {
    await tenant("Tenant A", A);
    await db().execute(
      sql.raw(`
      create function deadlock_boom() returns trigger language plpgsql as $$
      begin if new.wamid = 'wamid.T3' then raise exception 'deadlock for the test' using errcode = '40P01'; end if; return new; end $$`),
    );
    await db().execute(sql.raw(`create trigger deadlock_boom before insert on messages for each row execute function deadlock_boom()`));
    try {
      const ids = await stored(
        Array.from({ length: 6 }, (_, i) =>
          deliveryToA({ id: `wamid.T${i}`, from: "254712345678", name: "Amina", text: `Habari ${i}`, timestamp: 1750060000 + i }),
        ),
      );
      // The handler as the worker runs it: its transaction rolls back when it throws.
      await expect(db().transaction((tx) => processIn(tx, ids))).rejects.toThrow();
      expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(Array(6).fill(null));
    } finally {
      await db().execute(sql.raw(`drop trigger deadlock_boom on messages`));
      await db().execute(sql.raw(`drop function deadlock_boom()`));
    }
    // Once the fault has passed, every delivery applies.
    await drainJobs();
    expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(Array(6).fill("processed"));
    expect(await db().select().from(messages)).toHaveLength(6);
  });

  it("does not mark a delivery failed when the database connection went (no SQLSTATE, as node-postgres says it): the job is retried", async () => {
    await tenant("Tenant A", A);
    // A trigger stands in for a connection PgBouncer's death cut (docs/fault-runs.md): its error says
    // what node-postgres says then, under no connection SQLSTATE (P0001, a raised exception).
    await db().execute(
      sql.raw(`
      create function gone_boom() returns trigger language plpgsql as $$
      begin if new.wamid = 'wamid.G2' then raise exception 'Connection terminated unexpectedly'; end if; return new; end $$`),
    );
    await db().execute(sql.raw(`create trigger gone_boom before insert on messages for each row execute function gone_boom()`));
    try {
      const ids = await stored(
        Array.from({ length: 4 }, (_, i) =>
          deliveryToA({ id: `wamid.G${i}`, from: "254712345678", name: "Amina", text: `Habari ${i}`, timestamp: 1750070000 + i }),
        ),
      );
      await expect(db().transaction((tx) => processIn(tx, ids))).rejects.toThrow();
      expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(Array(4).fill(null));
    } finally {
      await db().execute(sql.raw(`drop trigger gone_boom on messages`));
      await db().execute(sql.raw(`drop function gone_boom()`));
    }
    await drainJobs();
    expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(Array(4).fill("processed"));
    expect(await db().select().from(messages)).toHaveLength(4);
  });

  it("tries a batch that met another transaction again whole, in the same run: none applied one by one, none failed", async () => {
    await tenant("Tenant A", A);
    // The batch's first two tries meet a deadlock (a sequence is not rolled back), the third goes through.
    await db().execute(sql.raw(`create sequence race_tries`));
    await db().execute(
      sql.raw(`
      create function race_boom() returns trigger language plpgsql as $$
      begin if nextval('race_tries') <= 2 then raise exception 'deadlock for the test' using errcode = '40P01'; end if; return null; end $$`),
    );
    await db().execute(sql.raw(`create trigger race_boom after insert on messages for each statement execute function race_boom()`));
    try {
      const ids = await stored(
        Array.from({ length: 4 }, (_, i) =>
          deliveryToA({ id: `wamid.R${i}`, from: `25471234560${i}`, name: `Mteja ${i}`, text: `Habari ${i}`, timestamp: 1750070000 + i }),
        ),
      );
      // One by one, the first delivery would have met the second deadlock and the whole job waited for a retry.
      await db().transaction((tx) => processIn(tx, ids));
      const [tries] = await queryRows<{ n: string }>(db(), sql`select last_value as n from race_tries`);
      expect(Number(tries!.n)).toBe(3);
    } finally {
      await db().execute(sql.raw(`drop trigger race_boom on messages`));
      await db().execute(sql.raw(`drop function race_boom()`));
      await db().execute(sql.raw(`drop sequence race_tries`));
    }
    expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(Array(4).fill("processed"));
    expect(await db().select().from(messages)).toHaveLength(4);
    expect(await db().select().from(contacts)).toHaveLength(4);
    // The inbox's change log has each message once: the failed tries' entries went with their savepoints.
    const logged = await queryRows<{ n: number; messages: number }>(
      db(),
      sql`select count(*)::int as n, count(distinct message_id)::int as messages from inbox_events where kind = 'message'`,
    );
    expect(logged).toEqual([{ n: 4, messages: 4 }]);
  });

  // PostgreSQL only: PGlite has one connection, so no other transaction can hold a lock.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "takes the inbox's change-log lock after the batch's writes, so other inbox writes wait for its commit only",
    async () => {
      const organizationId = await tenant("Tenant A", A);
      const [event] = await stored([
        deliveryToA({ id: "wamid.L1", from: "254712399002", name: "Kamau", text: "Habari", timestamp: 1750090000 }),
      ]);
      const holder = new pg.Client({ connectionString: testDatabaseUrl() });
      const probe = new pg.Client({ connectionString: testDatabaseUrl() });
      await holder.connect();
      await probe.connect();
      try {
        // Another inbox write of the organisation holds its change-log lock.
        await holder.query("begin");
        await holder.query("select pg_advisory_xact_lock(16016, hashtext($1))", [organizationId]);
        const batch = db().transaction((tx) => processIn(tx, [event!]));
        await waitingForLock(16016);
        // The batch waits for it with its delivery already marked (the batch's last write): the log comes last.
        await probe.query("begin");
        await expect(probe.query("select id from webhook_events where id = $1 for update nowait", [event])).rejects.toMatchObject({
          code: "55P03",
        });
        await probe.query("rollback");
        await holder.query("commit");
        await batch;
      } finally {
        await holder.end();
        await probe.end();
      }
      expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(["processed"]);
      const logged = await queryRows<{ kind: string }>(db(), sql`select kind from inbox_events where organization_id = ${organizationId}`);
      expect(logged.map((r) => r.kind)).toContain("message");
    },
  );

  // PostgreSQL only: PGlite has one connection, so no other transaction can hold a lock.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "two batches writing the same customer go one after the other, on the person's lock, and make one contact",
    async () => {
      await tenant("Tenant A", A);
      const delivery = (n: number) =>
        deliveryToA({ id: `wamid.S${n}`, from: "254712399001", name: "Wanjiru", text: `Ujumbe ${n}`, timestamp: 1750080000 + n });
      const [first] = await stored([delivery(1)]);
      const [second] = await stored([delivery(2)]);
      const other = new pg.Client({ connectionString: testDatabaseUrl() });
      await other.connect();
      try {
        // The first batch (in `other`) stores the new customer and holds its transaction open.
        await other.query("begin");
        await processIn(drizzle(other) as unknown as Executor, [first!]);
        const secondBatch = db().transaction((tx) => processIn(tx, [second!], 2));
        // The second waits for the person's lock, not on a row half-way through its writes.
        await waitingForLock(16017);
        await other.query("commit");
        await secondBatch;
      } finally {
        await other.end();
      }
      expect((await db().select().from(webhookEvents)).map((e) => e.outcome)).toEqual(["processed", "processed"]);
      expect(await db().select().from(contacts)).toHaveLength(1);
      expect(await db().select().from(messages)).toHaveLength(2);
    },
  );
});

describe("links that end", () => {
  it("PARTNER_REMOVED disconnects the account and frees its number, and later messages go to whoever connects it next", async () => {
    const orgA = await tenant("Tenant A", A);
    const removed = metaJson(
      envelope([{ id: A.wabaId, time: 1750050000, changes: [{ field: "account_update", value: { event: "PARTNER_REMOVED" } }] }]),
    );
    expect((await receiver.post(removed)).status).toBe(200);
    await drainJobs();
    expect((await db().select().from(whatsappAccounts))[0]).toMatchObject({
      organizationId: orgA,
      status: "disconnected",
      subscribed: false,
    });
    expect((await db().select().from(whatsappPhoneNumbers))[0]!.disconnectedAt).not.toBeNull();

    // Another tenant connects the same WABA and number: both rows exist, only the live one receives.
    const orgB = await tenant("Tenant B", A);
    const raw = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [
            inboundChange(A.phoneNumberId, digits(A.display), {
              id: "wamid.AFTER",
              from: "254700000009",
              name: "Baraka",
              text: "Bado mko?",
              timestamp: 1750050100,
            }),
          ],
        },
      ]),
    );
    expect((await receiver.post(raw)).status).toBe(200);
    await drainJobs();
    expect(await db().select().from(messages).where(eq(messages.organizationId, orgA))).toHaveLength(0);
    expect((await db().select().from(messages).where(eq(messages.organizationId, orgB))).map((m) => m.body)).toEqual(["Bado mko?"]);

    // A quality update for the number is the live link's; the disconnected row stays as it was.
    const quality = metaJson(
      envelope([
        {
          id: A.wabaId,
          time: 1750050200,
          changes: [
            {
              field: "phone_number_quality_update",
              value: { display_phone_number: digits(A.display), event: "FLAGGED", current_limit: "TIER_2K" },
            },
          ],
        },
      ]),
    );
    expect((await receiver.post(quality)).status).toBe(200);
    // Refreshing from Graph is a job of its own; only webhook processing runs here.
    for (let i = 0; i < 3; i++) await runJobBatch(WEBHOOK_QUEUE);
    const numbers = await db().select().from(whatsappPhoneNumbers).where(eq(whatsappPhoneNumbers.phoneNumberId, A.phoneNumberId));
    expect(numbers.find((n) => n.organizationId === orgB)).toMatchObject({ qualityEvent: "FLAGGED", messagingLimit: "TIER_2K" });
    expect(numbers.find((n) => n.organizationId === orgA)).toMatchObject({ qualityEvent: null });
    const flagged = await db().select().from(activityLogs).where(eq(activityLogs.action, "WhatsApp number quality update"));
    expect(flagged.map((a) => a.organizationId)).toEqual([orgB]);
  });
});

// Issue 77: Meta's status can come while the dispatcher's settle (which writes the wamid) is not yet
// committed. The batch then finds no message for it, and the settle's own apply cannot see the
// batch's status: neither applies it. A message Meta only fails (131026, not on WhatsApp) has no later
// status to join it up, so it stayed accepted and its SMS fallback never came. PostgreSQL only.
describe("a status that comes while its send is being settled", () => {
  it.skipIf(!process.env.TEST_DATABASE_URL)("is applied by a later try once both have committed", async () => {
    const org = await tenant("Tenant A", A);
    const [message] = await queryRows<{ id: string }>(
      db(),
      sql`insert into messages (organization_id, direction, status, phone_number_id, recipient_phone, attempts, locked_until)
          values (${org}, 'outbound', 'queued', ${A.phoneNumberId}, '+254712340000', 1, now() + interval '30 seconds') returning id`,
    );
    const wamid = "wamid.EARLY1";
    const failed = { id: wamid, status: "failed", timestamp: 1750030073, recipient_id: "254712340000" };
    const ids = await stored([
      metaJson(
        envelope([
          {
            id: A.wabaId,
            changes: [
              statusChange(A.phoneNumberId, digits(A.display), [
                { ...failed, biz_opaque_callback_data: message!.id, errors: [{ code: 131026, title: "Message undeliverable" }] },
              ]),
            ],
          },
        ]),
      ),
    ]);
    const [settle, batch] = [
      new pg.Client({ connectionString: testDatabaseUrl() }),
      new pg.Client({ connectionString: testDatabaseUrl() }),
    ];
    await Promise.all([settle.connect(), batch.connect()]);
    try {
      // The dispatcher's settle: the wamid written and the kept statuses applied (none yet), not committed.
      await settle.query("begin");
      await settle.query(`update messages set wamid = $2, accepted_at = now(), locked_until = null where id = $1`, [message!.id, wamid]);
      expect(await applyKeptStatuses(drizzle(settle) as unknown as Executor, [{ organizationId: org, wamid }])).toEqual([]);
      // The webhook batch meanwhile: the message is held (its adoption skips it) and its wamid not yet seen.
      await batch.query("begin");
      await processIn(drizzle(batch) as unknown as Executor, ids);
      await batch.query("commit");
      await settle.query("commit");
    } finally {
      await Promise.all([settle.end(), batch.end()]);
    }
    const row = async () =>
      (await db().select({ status: messages.status, errorCode: messages.errorCode }).from(messages).where(eq(messages.id, message!.id)))[0];
    expect(await row()).toEqual({ status: "queued", errorCode: null });
    // The batch kept it for a later try, which applies it now that both have committed.
    const late = await queryRows<{ id: number }>(
      db(),
      sql`select id from jobs where queue = ${LATE_STATUSES_QUEUE} and finished_at is null`,
    );
    expect(late).toHaveLength(1);
    await db().execute(sql`update jobs set run_at = now() where queue = ${LATE_STATUSES_QUEUE}`);
    await drainJobs();
    expect(await row()).toEqual({ status: "failed", errorCode: 131026 });
    // Done: nothing queued again.
    expect(await queryRows(db(), sql`select id from jobs where queue = ${LATE_STATUSES_QUEUE} and finished_at is null`)).toEqual([]);
  });
});
