import { describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createPartitionsAhead, dropExpiredPartitions, partitionsOf } from "~/.server/domains/housekeeping/partitions";
import { RETENTION_LIMITS } from "~/lib/retention-limits";
import { pgliteExtensions } from "~/.server/infrastructure/db/pglite-extensions";
import { migrateUpTo } from "../support/migrations";
import { createVerifiedUser } from "../support/accounts";

// Decision 181 (migration 0092): messages partitioned by month of created_at. A message lands in its
// month; a month the default partition took rows of moves them with everything that refers to them; a
// month past the longest message retention is dropped whole, with what refers to its messages.

const DAY = 86_400_000;
const month = (at: Date) => `messages_p${at.toISOString().slice(0, 7).replace("-", "_")}`;

async function tenant(name: string) {
  const { organization } = await createVerifiedUser({ businessName: name });
  return organization.id;
}

async function message(org: string, at: Date, wamid: string | null = null) {
  const [row] = await rawQuery<{ id: string; part: string }>(
    `insert into messages (organization_id, direction, status, body, wamid, created_at)
     values ($1, 'inbound', 'received', 'Habari', $2, $3) returning id, tableoid::regclass::text as part`,
    [org, wamid, at.toISOString()],
  );
  return row!;
}

/** A run, a fallback and an order naming the message, as a customer's message from an ad sets off. */
async function referTo(org: string, id: string) {
  await rawQuery(`insert into automation_runs (organization_id, message_id, phone_number_id, kind) values ($1, $2::uuid, '1', 'welcome')`, [
    org,
    id,
  ]);
  await rawQuery(`insert into sms_fallbacks (organization_id, source_message_id, trigger) values ($1, $2::uuid, 'undeliverable')`, [
    org,
    id,
  ]);
  await rawQuery(
    `insert into orders (organization_id, message_id, wamid, catalog_id, total_cents) values ($1, $2::uuid, 'wamid.o.' || $2::text, 'cat', 100)`,
    [org, id],
  );
}

async function referencesOf(id: string) {
  const [row] = await rawQuery<{ runs: number; fallbacks: number; orders: number; keys: number }>(
    `select (select count(*)::int from automation_runs where message_id = $1) as runs,
            (select count(*)::int from sms_fallbacks where source_message_id = $1) as fallbacks,
            (select count(*)::int from orders where message_id = $1) as orders,
            (select count(*)::int from message_wamids where message_id = $1) as keys`,
    [id],
  );
  return row;
}

describe("messages by month (decision 181)", () => {
  it("is partitioned, and a message lands in its month's partition; this month and three ahead exist", async () => {
    const org = await tenant("Thika Greens");
    const [kind] = await rawQuery<{ relkind: string }>(`select relkind::text from pg_class where relname = 'messages'`);
    expect(kind).toEqual({ relkind: "p" });
    const now = new Date();
    expect((await message(org, now)).part).toBe(month(now));
    await createPartitionsAhead();
    const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 15));
    expect(await partitionsOf("messages")).toEqual(expect.arrayContaining(["messages_default", month(now), month(ahead)]));
    // Each month keeps the status updates in place (migration 0024's fillfactor), as the default does.
    const options = await rawQuery<{ relname: string; reloptions: string[] | null }>(
      `select relname, reloptions from pg_class where relname in ('messages_default', $1)`,
      [month(ahead)],
    );
    expect(options.map((row) => row.reloptions)).toEqual([["fillfactor=80"], ["fillfactor=80"]]);
  });

  it("a month made after the default partition took its rows moves them, their references and keys kept", async () => {
    const org = await tenant("Embu Millers");
    const at = new Date(Date.now() - 30 * 31 * DAY);
    const old = await message(org, at, "wamid.OLDMONTH");
    expect(old.part).toBe("messages_default");
    await referTo(org, old.id);
    await rawQuery(`select jumbe_ensure_month_partition('messages', 'created_at', $1::date)`, [at.toISOString().slice(0, 10)]);
    const [moved] = await rawQuery<{ part: string }>(`select tableoid::regclass::text as part from messages where id = $1`, [old.id]);
    expect(moved).toEqual({ part: month(at) });
    expect(await referencesOf(old.id)).toEqual({ runs: 1, fallbacks: 1, orders: 1, keys: 1 });
  });

  it("a month past the longest message retention is dropped whole with what refers to its messages; newer months keep theirs", async () => {
    const org = await tenant("Meru Coffee");
    const oldAt = new Date(Date.now() - (RETENTION_LIMITS.messages.max + 62) * DAY);
    const keptAt = new Date(Date.now() - (RETENTION_LIMITS.messages.max - 62) * DAY);
    await rawQuery(`select jumbe_ensure_month_partition('messages', 'created_at', $1::date)`, [oldAt.toISOString().slice(0, 10)]);
    await rawQuery(`select jumbe_ensure_month_partition('messages', 'created_at', $1::date)`, [keptAt.toISOString().slice(0, 10)]);
    const old = await message(org, oldAt, "wamid.EXPIRED");
    const kept = await message(org, keptAt, "wamid.KEPT");
    expect([old.part, kept.part]).toEqual([month(oldAt), month(keptAt)]);
    await referTo(org, old.id);
    await referTo(org, kept.id);

    expect(await dropExpiredPartitions()).toContain(month(oldAt));

    const parts = await partitionsOf("messages");
    expect(parts).not.toContain(month(oldAt));
    expect(parts).toContain(month(keptAt));
    expect(await rawQuery(`select 1 from messages where id = $1`, [old.id])).toEqual([]);
    expect(await referencesOf(old.id)).toEqual({ runs: 0, fallbacks: 0, orders: 0, keys: 0 });
    // The order stays (money), without its message.
    expect(await rawQuery(`select message_id from orders where wamid = $1`, [`wamid.o.${old.id}`])).toEqual([{ message_id: null }]);
    expect(await referencesOf(kept.id)).toEqual({ runs: 1, fallbacks: 1, orders: 1, keys: 1 });
  });

  it("releases only a month of messages, by its name from the catalogue", async () => {
    await expect(rawQuery(`select messages_release_partition('orders')`)).rejects.toThrow("not a month of messages: orders");
  });

  it(
    "migration 0092 moves every message with its id, seq and wamid key into its month, and the next message follows on",
    { timeout: 300_000 },
    async () => {
      const database = await PGlite.create("memory://", { extensions: await pgliteExtensions() });
      try {
        await migrateUpTo(database, 91);
        const [org] = (
          await database.query<{ id: string }>(
            `insert into organizations (name, business_id) values ('Migrated Ltd', 'MIG-1') returning id`,
          )
        ).rows;
        const before = (
          await database.query<{ id: string; seq: string; created_at: string; month: string }>(
            `insert into messages (organization_id, direction, status, body, wamid, created_at)
             values ($1, 'inbound', 'received', 'Zamani', 'wamid.M1', now() - interval '14 months'),
                    ($1, 'outbound', 'delivered', 'Leo', 'wamid.M2', now())
             returning id, seq::text, created_at::text as created_at, to_char(created_at at time zone 'UTC', 'YYYY_MM') as month`,
            [org!.id],
          )
        ).rows;
        await database.query(
          `insert into automation_runs (organization_id, message_id, phone_number_id, kind) values ($1, $2, '1', 'welcome')`,
          [org!.id, before[0]!.id],
        );

        const received = async () =>
          (await database.query<{ n: number }>(`select coalesce(sum(received), 0)::int as n from message_stats_pending`)).rows[0]!.n;
        expect(await received()).toBe(1);

        await migrateUpTo(database, 92);

        // The copy added nothing to analytics.
        expect(await received()).toBe(1);

        const after = (
          await database.query<{ id: string; seq: string; created_at: string; part: string }>(
            `select id, seq::text, created_at::text as created_at, tableoid::regclass::text as part from messages order by seq`,
          )
        ).rows;
        expect(after).toEqual(
          before.map((row) => ({ id: row.id, seq: row.seq, created_at: row.created_at, part: `messages_p${row.month}` })),
        );
        const keys = (
          await database.query<{ wamid: string; message_id: string }>(`select wamid, message_id from message_wamids order by wamid`)
        ).rows;
        expect(keys).toEqual([
          { wamid: "wamid.M1", message_id: before[0]!.id },
          { wamid: "wamid.M2", message_id: before[1]!.id },
        ]);
        // The next message's seq follows on, a taken wamid is still refused, and the triggers came back:
        // analytics counts a new customer's message, a deleted message takes its run.
        const [next] = (
          await database.query<{ seq: string }>(
            `insert into messages (organization_id, direction, status, body, phone_number_id) values ($1, 'inbound', 'received', 'Sasa', '1') returning seq::text`,
            [org!.id],
          )
        ).rows;
        expect(BigInt(next!.seq)).toBeGreaterThan(BigInt(before[1]!.seq));
        await expect(
          database.query(
            `insert into messages (organization_id, direction, status, wamid) values ($1, 'inbound', 'received', 'wamid.M1')`,
            [org!.id],
          ),
        ).rejects.toMatchObject({ code: "23505" });
        expect(await received()).toBe(2);
        await database.query(`delete from messages where id = $1`, [before[0]!.id]);
        expect((await database.query(`select 1 from automation_runs`)).rows).toEqual([]);
        expect((await database.query(`select 1 from message_wamids where message_id = $1`, [before[0]!.id])).rows).toEqual([]);
      } finally {
        await database.close();
      }
    },
  );
});
