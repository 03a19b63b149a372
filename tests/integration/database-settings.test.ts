import { describe, expect, it } from "vitest";
import pg from "pg";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { DATABASE_SETTINGS, keepDatabaseSettings } from "~/.server/infrastructure/db/database-settings";
import { testDatabaseUrl } from "../support/database";

// Decision 184: every session on Jumbe's database runs without JIT compilation. A plan over the
// partitioned tables counts every month's scan in its cost, so short statements passed
// jit_above_cost and compiled thousands of functions each run (30 s for the demo seed's reply marking
// over 88 months of messages). The setting is kept on the database at every start, since a database
// made from a template (as each test file's is) or restored from a dump does not carry it.

async function databaseSettings() {
  const [row] = await rawQuery<{ settings: string[] | null }>(
    `select s.setconfig as settings from pg_db_role_setting s
     where s.setdatabase = (select oid from pg_database where datname = current_database()) and s.setrole = 0`,
  );
  return row?.settings ?? [];
}

/** A fresh session on this file's PostgreSQL database (the pool's were opened before a reset). */
async function freshSession<T>(work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether EXPLAIN ANALYZE reports JIT compilation for a statement over every month of messages. */
async function compiles(client: pg.Client) {
  const { rows } = await client.query<{ "QUERY PLAN": [Record<string, unknown>] }>(
    `explain (analyze, format json)
     select count(*) from messages m where m.payload ->> 'kind' = 'x' and m.body like '%habari%'`,
  );
  return "JIT" in rows[0]!["QUERY PLAN"][0];
}

describe("the database's own settings (decision 184)", () => {
  it("the database carries jit = off after the start, and this session runs with it", async () => {
    expect(DATABASE_SETTINGS).toEqual({ jit: "off" });
    expect(await databaseSettings()).toContain("jit=off");
    expect(await rawQuery(`show jit`)).toEqual([{ jit: "off" }]);
  });

  it("puts back a setting the database lost (a template, a restore without --create), once", async () => {
    await rawQuery(`do $$ begin execute format('alter database %I reset jit', current_database()); end $$`);
    await rawQuery(`set jit = on`);
    expect(await databaseSettings()).not.toContain("jit=off");

    expect(await keepDatabaseSettings(rawQuery)).toEqual(["jit=off"]);
    expect(await databaseSettings()).toContain("jit=off");
    expect(await keepDatabaseSettings(rawQuery), "a second start changes nothing").toEqual([]);
  });

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "PostgreSQL: a new session compiles nothing, where one with jit on compiles the same statement",
    async () => {
      await freshSession(async (client) => {
        expect((await client.query(`show jit`)).rows).toEqual([{ jit: "off" }]);
        // Every plan past this cost would compile: only the setting stops it.
        await client.query(`set jit_above_cost = 0`);
        await client.query(`set jit_inline_above_cost = -1`);
        await client.query(`set jit_optimize_above_cost = -1`);
        expect(await compiles(client)).toBe(false);
        await client.query(`set jit = on`);
        expect(await compiles(client), "this PostgreSQL has JIT: the check above could fail").toBe(true);
      });
    },
  );
});
