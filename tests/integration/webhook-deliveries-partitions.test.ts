import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messages, restHooks, webhookEndpoints } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { enqueueMessageEvents, WEBHOOK_OUT_QUEUE, type MessageEvent } from "~/.server/domains/webhooks-out/events";
import {
  createPartitionsAhead,
  dropExpiredPartitions,
  partitionsOf,
  PARTITION_MONTHS_AHEAD,
} from "~/.server/domains/housekeeping/partitions";
import { enforceRetention } from "~/.server/domains/housekeeping/retention";
import { migrateUpTo } from "../support/migrations";
import { createVerifiedUser } from "../support/accounts";
import { pgliteExtensions } from "~/.server/infrastructure/db/pglite-extensions";

// Decision 169 (amends 164): webhook deliveries out are partitioned by month of created_at, and a
// message's event is still delivered once per endpoint or REST hook however much later it is
// reported again: its key lives in webhook_delivery_keys, unique across every month, and goes with
// its delivery (each organisation's retention, a dropped month), never while its delivery stays.

registerJobHandlers();

let received: string[] = [];
let receiver: http.Server;
let port = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", WEBHOOK_ALLOW_LOOPBACK: "1" }));
  received = [];
});

/** A tenant with an endpoint on the loopback receiver and a REST hook on message.status. */
async function tenant(name: string) {
  const { organization } = await createVerifiedUser({ businessName: name });
  await db()
    .insert(webhookEndpoints)
    .values({ organizationId: organization.id, url: `http://127.0.0.1:${port}/endpoint`, events: ["message.delivered", "message.read"] });
  const [hook] = await db()
    .insert(restHooks)
    .values({
      organizationId: organization.id,
      event: "message.status",
      targetUrl: `http://127.0.0.1:${port}/hook`,
      secretEncrypted: encryptSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    })
    .returning();
  const [sent] = await db()
    .insert(messages)
    .values({
      organizationId: organization.id,
      direction: "outbound",
      status: "delivered",
      body: "Habari Wanjiru, your parcel is at the Westlands pick-up point.",
      wamid: `wamid.${Math.random().toString(36).slice(2)}`,
      phoneNumberId: "1000000000000002",
      messageType: "text",
      recipientPhone: "+254722000111",
      recipientWaId: "254722000111",
      sentAt: new Date(),
      deliveredAt: new Date(),
    })
    .returning();
  const delivered: MessageEvent = { organizationId: organization.id, type: "message.delivered", messageId: sent!.id };
  return { organizationId: organization.id, hookId: hook!.id, messageId: sent!.id, delivered };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** The tenant's deliveries with the partition each is in, and their keys. */
async function stored(t: Tenant) {
  return {
    deliveries: await rawQuery<{ id: string; hook: boolean; part: string; created_at: string }>(
      `select id, hook_id is not null as hook, tableoid::regclass::text as part, created_at::text as created_at
       from webhook_deliveries where organization_id = $1 order by hook_id nulls first`,
      [t.organizationId],
    ),
    keys: await rawQuery<{ delivery_id: string; hook: boolean; created_at: string }>(
      `select delivery_id, hook_id is not null as hook, created_at::text as created_at
       from webhook_delivery_keys where organization_id = $1 order by hook_id nulls first`,
      [t.organizationId],
    ),
  };
}

/** The month `offset` months from this one (UTC): a partition's suffix and its first moment. */
function month(offset: number) {
  const now = new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  return { suffix: `${first.getUTCFullYear()}_${String(first.getUTCMonth() + 1).padStart(2, "0")}`, first };
}

/**
 * The tenant's deliveries and their keys as an enqueue at `at` would have left them (the database's
 * clock cannot be put back): both dated `at`, the deliveries moved into that month's partition.
 */
async function dateDeliveries(t: Tenant, at: Date) {
  await rawQuery(
    `with d as (update webhook_deliveries set created_at = $2 where organization_id = $1 returning id, created_at)
     update webhook_delivery_keys k set created_at = d.created_at from d where k.delivery_id = d.id`,
    [t.organizationId, at.toISOString()],
  );
}

const ensureMonth = (offset: number) =>
  rawQuery(`select jumbe_ensure_month_partition('webhook_deliveries', 'created_at', $1::date)`, [
    month(offset).first.toISOString().slice(0, 10),
  ]);

const jobsFor = async (t: Tenant) =>
  (
    await rawQuery<{ n: number }>(
      `select count(*)::int as n from jobs j join webhook_deliveries d on j.payload ->> 'deliveryId' = d.id::text
       where j.queue = $1 and d.organization_id = $2`,
      [WEBHOOK_OUT_QUEUE, t.organizationId],
    )
  )[0]!.n;

describe("webhook deliveries by month", () => {
  it("land in their month's partition, each with its key, and are delivered by a job that names the month", async () => {
    const t = await tenant("Partitioned Deliveries Ltd");
    // Reported twice in one batch: one delivery each for the endpoint and the hook.
    expect(await enqueueMessageEvents(db(), [t.delivered, t.delivered])).toBe(2);
    const now = await stored(t);
    expect(now.deliveries.map((d) => [d.hook, d.part])).toEqual([
      [false, `webhook_deliveries_p${month(0).suffix}`],
      [true, `webhook_deliveries_p${month(0).suffix}`],
    ]);
    expect(now.keys).toEqual(now.deliveries.map((d) => ({ delivery_id: d.id, hook: d.hook, created_at: d.created_at })));
    const payloads = await rawQuery<{ delivery: string; created: boolean }>(
      `select j.payload ->> 'deliveryId' as delivery, (j.payload ->> 'createdAt')::timestamptz = d.created_at as created
       from jobs j join webhook_deliveries d on d.id::text = j.payload ->> 'deliveryId' where j.queue = $1 and d.organization_id = $2
       order by d.hook_id nulls first`,
      [WEBHOOK_OUT_QUEUE, t.organizationId],
    );
    expect(payloads).toEqual(now.deliveries.map((d) => ({ delivery: d.id, created: true })));

    await drainJobs();
    expect(received).toHaveLength(2);
    expect(
      (await rawQuery<{ status: string }>(`select status from webhook_deliveries where organization_id = $1`, [t.organizationId])).map(
        (row) => row.status,
      ),
    ).toEqual(["delivered", "delivered"]);
  });

  it("a job queued before the table was partitioned (no createdAt) still delivers, found by its id", async () => {
    const t = await tenant("Old Job Ltd");
    await enqueueMessageEvents(db(), [t.delivered]);
    // As the jobs of migration 0085's time were written: the delivery's id and seq alone.
    await rawQuery(`update jobs set payload = payload - 'createdAt' where queue = $1`, [WEBHOOK_OUT_QUEUE]);
    expect(await rawQuery(`select 1 from jobs where queue = $1 and payload ? 'createdAt'`, [WEBHOOK_OUT_QUEUE])).toEqual([]);
    await drainJobs();
    expect(received).toHaveLength(2);
  });

  it("the same event reported again in a later month writes no second delivery, for the endpoint or the hook", async () => {
    const t = await tenant("Month Boundary Ltd");
    await ensureMonth(-1);
    expect(await enqueueMessageEvents(db(), [t.delivered])).toBe(2);
    // Queued last month: its deliveries are in last month's partition.
    const lastMonth = new Date(month(0).first.getTime() - 60_000);
    await dateDeliveries(t, lastMonth);
    const before = await stored(t);
    expect(before.deliveries.map((d) => d.part)).toEqual([
      `webhook_deliveries_p${month(-1).suffix}`,
      `webhook_deliveries_p${month(-1).suffix}`,
    ]);
    const jobs = await jobsFor(t);

    // Meta reports the same status again now, in this month.
    expect(await enqueueMessageEvents(db(), [t.delivered])).toBe(0);
    expect(await stored(t)).toEqual(before);
    expect(await jobsFor(t)).toBe(jobs);
    // Another event of the same message is a delivery of its own, this month.
    expect(await enqueueMessageEvents(db(), [{ ...t.delivered, type: "message.read" }])).toBe(2);
    expect((await stored(t)).deliveries.map((d) => d.part).sort()).toEqual([
      `webhook_deliveries_p${month(-1).suffix}`,
      `webhook_deliveries_p${month(-1).suffix}`,
      `webhook_deliveries_p${month(0).suffix}`,
      `webhook_deliveries_p${month(0).suffix}`,
    ]);
  });

  it("a month made after the default partition took its rows moves them with their keys kept", async () => {
    const t = await tenant("Default Partition Ltd");
    const last = month(PARTITION_MONTHS_AHEAD);
    await createPartitionsAhead();
    await db().execute(sql.raw(`drop table webhook_deliveries_p${last.suffix}`));
    await enqueueMessageEvents(db(), [t.delivered]);
    await dateDeliveries(t, new Date(last.first.getTime() + 2 * 86_400_000));
    expect((await stored(t)).deliveries.map((d) => d.part)).toEqual(["webhook_deliveries_default", "webhook_deliveries_default"]);
    const keys = (await stored(t)).keys;

    expect(await createPartitionsAhead()).toBe(1);
    const after = await stored(t);
    expect(after.deliveries.map((d) => d.part)).toEqual([`webhook_deliveries_p${last.suffix}`, `webhook_deliveries_p${last.suffix}`]);
    expect(after.keys).toEqual(keys);
    expect(await enqueueMessageEvents(db(), [t.delivered])).toBe(0);
  });
});

describe("retention of deliveries and their keys", () => {
  it("a month past the platform's longest retention is dropped whole with its deliveries' keys; newer months and their keys stay", async () => {
    const old = await tenant("Dropped Month Ltd");
    const kept = await tenant("Kept Month Ltd");
    await ensureMonth(-14);
    await enqueueMessageEvents(db(), [old.delivered, kept.delivered]);
    await dateDeliveries(old, new Date(month(-14).first.getTime() + 86_400_000));
    expect((await stored(old)).deliveries.map((d) => d.part)).toEqual([
      `webhook_deliveries_p${month(-14).suffix}`,
      `webhook_deliveries_p${month(-14).suffix}`,
    ]);
    expect((await stored(old)).keys).toHaveLength(2);
    const keptBefore = await stored(kept);
    expect(keptBefore.keys).toHaveLength(2);

    expect(await dropExpiredPartitions()).toEqual([`webhook_deliveries_p${month(-14).suffix}`]);
    expect(await partitionsOf("webhook_deliveries")).not.toContain(`webhook_deliveries_p${month(-14).suffix}`);
    expect(await stored(old)).toEqual({ deliveries: [], keys: [] });
    expect(await stored(kept)).toEqual(keptBefore);
    expect(await dropExpiredPartitions()).toEqual([]);
    expect(await stored(kept)).toEqual(keptBefore);
  });

  it("a delivery as old that the default partition holds keeps its key", async () => {
    const t = await tenant("Default Kept Ltd");
    await enqueueMessageEvents(db(), [t.delivered]);
    // No partition for that month (it was never made): the rows are in the default partition.
    await dateDeliveries(t, new Date(month(-20).first.getTime() + 86_400_000));
    const before = await stored(t);
    expect(before.deliveries.map((d) => d.part)).toEqual(["webhook_deliveries_default", "webhook_deliveries_default"]);
    await dropExpiredPartitions();
    expect(await stored(t)).toEqual(before);
    expect(await enqueueMessageEvents(db(), [t.delivered])).toBe(0);
  });

  it("each organisation's retention deletes its finished deliveries in chunks with their keys, nobody else's", async () => {
    const t = await tenant("Short Logs Ltd");
    const other = await tenant("Long Logs Ltd");
    await enqueueMessageEvents(db(), [t.delivered, other.delivered]);
    await drainJobs();
    const at = new Date(Date.now() - 40 * 86_400_000);
    await dateDeliveries(t, at);
    await dateDeliveries(other, at);
    const theirs = await stored(other);

    const removed = await enforceRetention({ id: t.organizationId, messageDays: 730, mediaDays: 90, logDays: 30 });
    expect(removed.logs).toBe(2);
    expect(await stored(t)).toEqual({ deliveries: [], keys: [] });
    expect(await stored(other)).toEqual(theirs);
  });

  it("a removed REST hook takes its deliveries' keys, and a closed organisation all of them", async () => {
    const t = await tenant("Removed Hook Ltd");
    await enqueueMessageEvents(db(), [t.delivered]);
    await rawQuery(`delete from rest_hooks where id = $1`, [t.hookId]);
    const left = await stored(t);
    expect(left.deliveries.map((d) => d.hook)).toEqual([false]);
    expect(left.keys.map((k) => k.hook)).toEqual([false]);

    await rawQuery(`delete from organizations where id = $1`, [t.organizationId]);
    expect(await stored(t)).toEqual({ deliveries: [], keys: [] });
  });
});

describe("migration 0086", () => {
  // Its own in-memory PGlite (the test database is migrated already): the same SQL runs on PostgreSQL.
  it(
    "moves every delivery, with its id, into its month's partition and gives each message event its key",
    { timeout: 300_000 },
    async () => {
      const database = await PGlite.create("memory://", { extensions: await pgliteExtensions() });
      try {
        await migrateUpTo(database, 85);
        const [org] = (
          await database.query<{ id: string }>(
            `insert into organizations (name, business_id) values ('Migrated Ltd', 'MIG-1') returning id`,
          )
        ).rows;
        const [hook] = (
          await database.query<{ id: string }>(
            `insert into rest_hooks (organization_id, event, target_url, secret_encrypted) values ($1, 'message.status', 'https://hooks.example.com/x', 'sealed') returning id`,
            [org!.id],
          )
        ).rows;
        const before = (
          await database.query<{
            id: string;
            event_type: string;
            message_id: string | null;
            hook_id: string | null;
            created_at: string;
            month: string;
          }>(
            `insert into webhook_deliveries (organization_id, event_type, message_id, hook_id, payload, status, created_at)
           values ($1, 'message.read', gen_random_uuid(), null, '{"n":1}', 'delivered', now() - interval '14 months'),
                  ($1, 'message.read', gen_random_uuid(), $2, '{"n":2}', 'pending', now()),
                  ($1, 'webhook.test', null, null, '{"n":3}', 'failed', now())
           returning id, event_type, message_id, hook_id, created_at::text as created_at,
                     to_char(created_at at time zone 'UTC', 'YYYY_MM') as month`,
            [org!.id, hook!.id],
          )
        ).rows;

        await migrateUpTo(database, 86);

        const [kind] = (
          await database.query<{ relkind: string }>(`select relkind::text from pg_class where relname = 'webhook_deliveries'`)
        ).rows;
        expect(kind).toEqual({ relkind: "p" });
        const after = (
          await database.query<{ id: string; created_at: string; part: string }>(
            `select id, created_at::text as created_at, tableoid::regclass::text as part from webhook_deliveries order by payload->>'n'`,
          )
        ).rows;
        expect(after).toEqual(before.map((row) => ({ id: row.id, created_at: row.created_at, part: `webhook_deliveries_p${row.month}` })));
        const keys = (
          await database.query<{ delivery_id: string; hook_id: string | null; message_id: string; event_type: string; created_at: string }>(
            `select delivery_id, hook_id, message_id, event_type, created_at::text as created_at from webhook_delivery_keys order by created_at`,
          )
        ).rows;
        expect(keys).toEqual(
          before
            .filter((row) => row.message_id)
            .map((row) => ({
              delivery_id: row.id,
              hook_id: row.hook_id,
              message_id: row.message_id,
              event_type: row.event_type,
              created_at: row.created_at,
            })),
        );
        // The delete trigger: a delivery removed takes its key.
        await database.query(`delete from webhook_deliveries where id = $1`, [before[0]!.id]);
        expect((await database.query(`select 1 from webhook_delivery_keys where delivery_id = $1`, [before[0]!.id])).rows).toEqual([]);
      } finally {
        await database.close();
      }
    },
  );
});
