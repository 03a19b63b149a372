// Statements prepared once per connection on PostgreSQL (decision 062): what the server's pool does
// with a statement seen twice, and with one whose table changes shape under it (a migration run by
// another instance during a rolling deploy).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { nameStatements, StatementNames } from "~/.server/infrastructure/db/pg-statements";

const url = process.env.TEST_DATABASE_URL;
const table = `prepared_${randomBytes(4).toString("hex")}`;

describe.skipIf(!url)("statements prepared once on PostgreSQL", () => {
  let pool: pg.Pool;

  beforeAll(async () => {
    // One connection, so every statement below meets the same prepared statements.
    pool = new pg.Pool({ connectionString: url, max: 1 });
    const names = new StatementNames();
    pool.on("connect", (client) => nameStatements(client, names));
    await pool.query(`create table ${table} (id int primary key, name text)`);
    await pool.query(`insert into ${table} values (1, 'Amina')`);
  });

  afterAll(async () => {
    await pool?.query(`drop table if exists ${table}`);
    await pool?.end();
  });

  const prepared = async () =>
    (await pool.query<{ statement: string }>("select statement from pg_prepared_statements order by prepare_time")).rows.map(
      (r) => r.statement,
    );

  it("prepares a statement the second time its text is run, and runs it by name after that", async () => {
    const text = `select name from ${table} where id = $1`;
    expect((await pool.query(text, [1])).rows).toEqual([{ name: "Amina" }]);
    expect(await prepared()).not.toContain(text);
    expect((await pool.query(text, [1])).rows).toEqual([{ name: "Amina" }]);
    expect((await pool.query(text, [2])).rows).toEqual([]);
    expect((await prepared()).filter((statement) => statement === text)).toHaveLength(1);
  });

  it("runs a statement again, prepared afresh, when its table changed shape under it", async () => {
    const text = `select * from ${table} where id = $1`;
    await pool.query(text, [1]);
    expect((await pool.query(text, [1])).rows).toEqual([{ id: 1, name: "Amina" }]);
    await pool.query(`alter table ${table} add column county text default 'Kisumu'`);
    // PostgreSQL refuses the prepared statement (0A000); the pool's form runs it again under a fresh name.
    expect((await pool.query(text, [1])).rows).toEqual([{ id: 1, name: "Amina", county: "Kisumu" }]);
  });

  it("in a transaction, fails that once (PostgreSQL has ended the transaction) and works on the next attempt", async () => {
    const text = `select * from ${table} where id = $1`;
    await pool.query(`alter table ${table} add column town text default 'Nakuru'`);
    const client = await pool.connect();
    try {
      await client.query("begin");
      await expect(client.query(text, [1])).rejects.toMatchObject({ code: "0A000" });
      await client.query("rollback");
      await client.query("begin");
      expect((await client.query(text, [1])).rows).toEqual([{ id: 1, name: "Amina", county: "Kisumu", town: "Nakuru" }]);
      await client.query("commit");
    } finally {
      client.release();
    }
  });
});
