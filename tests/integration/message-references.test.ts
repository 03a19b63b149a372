import { describe, expect, it } from "vitest";
import pg from "pg";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createVerifiedUser } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";

// Decision 180 (migration 0091): the five references to a message are triggers, not foreign keys, so
// they hold across messages' monthly partitions. They must refuse and cascade as the keys did.

const MISSING = "00000000-0000-4000-8000-000000000042";

async function tenant(name: string) {
  const { organization } = await createVerifiedUser({ businessName: name });
  return organization.id;
}

async function message(org: string, body = "Habari, bei ya mbolea?") {
  const [row] = await rawQuery<{ id: string }>(
    `insert into messages (organization_id, direction, status, body) values ($1, 'inbound', 'received', $2) returning id`,
    [org, body],
  );
  return row!.id;
}

/** One row in each table that names a message, for `id`; `n` tells them apart within a test. */
const referrers = {
  automation_runs: (org: string, id: string) =>
    rawQuery(
      `insert into automation_runs (organization_id, message_id, phone_number_id, kind) values ($1, $2::uuid, '106540352242922', 'welcome')`,
      [org, id],
    ),
  hubspot_logged_messages: (org: string, id: string) =>
    rawQuery(
      `insert into hubspot_logged_messages (message_id, organization_id, hub_id, communication_id) values ($2::uuid, $1, '4411', 'c-' || $2::text)`,
      [org, id],
    ),
  orders: (org: string, id: string) =>
    rawQuery(
      `insert into orders (organization_id, message_id, wamid, catalog_id, total_cents) values ($1, $2::uuid, 'wamid.' || $2::text, 'cat-1', 150000)`,
      [org, id],
    ),
  shopify_events: (org: string, id: string) =>
    rawQuery(
      `insert into shopify_events (organization_id, shop, event_id, topic, payload, message_id)
       values ($1, 'duka.myshopify.com', 'ev-' || $2::text, 'orders/create', '{}', $2::uuid)`,
      [org, id],
    ),
  sms_fallbacks: (org: string, id: string) =>
    rawQuery(`insert into sms_fallbacks (organization_id, source_message_id, trigger) values ($1, $2, 'undeliverable')`, [org, id]),
} as const;
type Referrer = keyof typeof referrers;
const TABLES = Object.keys(referrers) as Referrer[];
const column = (table: Referrer) => (table === "sms_fallbacks" ? "source_message_id" : "message_id");

async function namedIn(table: Referrer, org: string) {
  const rows = await rawQuery<{ ref: string | null }>(
    `select ${column(table)} as ref from ${table} where organization_id = $1 order by ${column(table)} nulls first`,
    [org],
  );
  return rows.map((row) => row.ref);
}

/** The error a statement failed with: its code and constraint, as the driver and drizzle give them. */
async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
      const { code, constraint } = cause as Error & { code?: string; constraint?: string };
      if (code) return { code, constraint };
    }
    throw error;
  }
  return undefined;
}

describe("references to a message (decision 180)", () => {
  it("no foreign key points at messages any more: the table can be partitioned", async () => {
    expect(await rawQuery(`select conname from pg_constraint where confrelid = 'messages'::regclass`)).toEqual([]);
  });

  it.each(TABLES)("%s refuses a message that is not there, under the old key's name, and stores nothing", async (table) => {
    const org = await tenant(`Refused ${table}`);
    expect(await refusal(() => referrers[table](org, MISSING))).toEqual({
      code: "23503",
      constraint: `${table}_${column(table)}_messages_id_fk`,
    });
    expect(await namedIn(table, org)).toEqual([]);
  });

  it.each(TABLES)("%s keeps a message that is there, and refuses being moved to one that is not", async (table) => {
    const org = await tenant(`Kept ${table}`);
    const id = await message(org);
    await referrers[table](org, id);
    expect(await namedIn(table, org)).toEqual([id]);
    expect(await refusal(() => rawQuery(`update ${table} set ${column(table)} = $1 where organization_id = $2`, [MISSING, org]))).toEqual({
      code: "23503",
      constraint: `${table}_${column(table)}_messages_id_fk`,
    });
    expect(await namedIn(table, org)).toEqual([id]);
  });

  it("sees a message inserted earlier in the same statement", async () => {
    const org = await tenant("Same Statement Dairy");
    await rawQuery(
      `with m as (insert into messages (organization_id, direction, status, body) values ($1, 'outbound', 'failed', 'Maziwa') returning id)
       insert into sms_fallbacks (organization_id, source_message_id, trigger) select $1, id, 'undeliverable' from m`,
      [org],
    );
    expect(await namedIn("sms_fallbacks", org)).toHaveLength(1);
  });

  it("a deleted message takes its runs, logs and fallbacks, and leaves its orders and Shopify events without it; others untouched", async () => {
    const org = await tenant("Kisumu Agrovet");
    const gone = await message(org, "Nitalipa kesho");
    const stays = await message(org, "Asante");
    for (const table of TABLES) {
      await referrers[table](org, gone);
      // hubspot_logged_messages is keyed by the message, orders and Shopify events by their own ids.
      await referrers[table](org, stays);
    }
    await rawQuery(`delete from messages where id = $1`, [gone]);
    expect(await namedIn("automation_runs", org)).toEqual([stays]);
    expect(await namedIn("hubspot_logged_messages", org)).toEqual([stays]);
    expect(await namedIn("sms_fallbacks", org)).toEqual([stays]);
    expect(await namedIn("orders", org)).toEqual([null, stays]);
    expect(await namedIn("shopify_events", org)).toEqual([null, stays]);
  });

  // The organisation's own cascade deletes the messages and the referring rows in one statement; the
  // messages' delete trigger then runs over rows already gone and must not fail the close.
  it("an organisation closes with its messages and their references, the trigger and the cascades together", async () => {
    const org = await tenant("Closing Duka");
    const id = await message(org);
    for (const table of TABLES) await referrers[table](org, id);
    await rawQuery(`delete from organizations where id = $1`, [org]);
    for (const table of TABLES) expect(await rawQuery(`select 1 from ${table} where ${column(table)} = $1`, [id])).toEqual([]);
  });

  // PostgreSQL only: PGlite has one connection, so no other transaction can hold a row.
  it.skipIf(!process.env.TEST_DATABASE_URL)("a reference to a message being deleted waits for the delete, then is refused", async () => {
    const org = await tenant("Racing Hardware");
    const id = await message(org);
    const other = new pg.Client({ connectionString: testDatabaseUrl() });
    await other.connect();
    try {
      await other.query("begin");
      await other.query(`delete from messages where id = $1`, [id]);
      let settled = false;
      const insert = refusal(() => referrers.sms_fallbacks(org, id)).finally(() => (settled = true));
      // The check waits on the deleting transaction's row lock, as a foreign key's check does.
      await waitForLockWait();
      expect(settled).toBe(false);
      await other.query("commit");
      expect(await insert).toEqual({ code: "23503", constraint: "sms_fallbacks_source_message_id_messages_id_fk" });
    } finally {
      await other.end();
    }
    expect(await namedIn("sms_fallbacks", org)).toEqual([]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)("a message's delete waits for a reference being written to it, then takes it", async () => {
    const org = await tenant("Racing Pharmacy");
    const id = await message(org);
    const other = new pg.Client({ connectionString: testDatabaseUrl() });
    await other.connect();
    try {
      await other.query("begin");
      await other.query(
        `insert into automation_runs (organization_id, message_id, phone_number_id, kind) values ($1, $2, '1', 'welcome')`,
        [org, id],
      );
      let settled = false;
      const remove = rawQuery(`delete from messages where id = $1`, [id]).finally(() => (settled = true));
      await waitForLockWait();
      expect(settled).toBe(false);
      await other.query("commit");
      await remove;
    } finally {
      await other.end();
    }
    expect(await namedIn("automation_runs", org)).toEqual([]);
    expect(await rawQuery(`select 1 from messages where id = $1`, [id])).toEqual([]);
  });
});

/** Until a backend of this database waits on a lock (polled: the waiting statement runs on another connection). */
async function waitForLockWait() {
  for (let i = 0; i < 200; i++) {
    const rows = await rawQuery(`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    if (rows.length) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no statement came to wait on a lock within 5 s");
}
