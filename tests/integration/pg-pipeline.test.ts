// Statements outside a transaction sent in the same turn of the event loop go to PostgreSQL together
// on one connection (decision 185): what each caller gets back, what one's failure does to the
// others, and what a lost connection, a transaction and a statement whose table changed do.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { pipelineAutocommitQueries } from "~/.server/infrastructure/db/pipeline";
import { nameStatements, StatementNames } from "~/.server/infrastructure/db/pg-statements";

const url = process.env.TEST_DATABASE_URL;
const table = `pipelined_${randomBytes(4).toString("hex")}`;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.skipIf(!url)("statements of one turn sent together on PostgreSQL", () => {
  let pool: pg.Pool;
  let checkouts: number;
  // Another session, to watch and to end the pool's connections.
  let watcher: pg.Client;

  beforeAll(async () => {
    watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    await watcher.query(`create table ${table} (id int primary key, name text)`);
  });

  const openPool = (max = 3) => {
    pool = new pg.Pool({ connectionString: url, max, pipeline: true });
    const names = new StatementNames();
    pool.on("connect", (client) => nameStatements(client, names));
    pool.on("error", () => {});
    checkouts = 0;
    pool.on("acquire", () => checkouts++);
    pipelineAutocommitQueries(pool);
    return pool;
  };

  afterEach(async () => {
    await pool?.end();
    await watcher.query(`delete from ${table}`);
  });

  afterAll(async () => {
    await watcher?.query(`drop table if exists ${table}`);
    await watcher?.end();
  });

  it("sends a turn's statements on one connection, taken once, each answered with its own rows in order", async () => {
    openPool();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => pool.query<{ i: number; pid: number }>("select $1::int as i, pg_backend_pid() as pid", [i])),
    );
    expect(answers.map((a) => a.rows[0]!.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(new Set(answers.map((a) => a.rows[0]!.pid)).size).toBe(1);
    expect(checkouts).toBe(1);
    expect(pool.totalCount).toBe(1);
  });

  it("fails only the statement that failed: the others of its turn answer, on the same connection", async () => {
    openPool();
    const settled = await Promise.allSettled([
      pool.query<{ pid: number }>("select pg_backend_pid() as pid"),
      pool.query("select 1 / 0"),
      pool.query(`select * from ${table}_missing`),
      pool.query<{ pid: number }>("select pg_backend_pid() as pid"),
      pool.query<{ n: number }>("select 7 as n"),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: "22012" });
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: "42P01" });
    const pid = (i: number) => (settled[i] as PromiseFulfilledResult<pg.QueryResult<{ pid: number }>>).value.rows[0]!.pid;
    expect(pid(0)).toBe(pid(3));
    expect((settled[4] as PromiseFulfilledResult<pg.QueryResult>).value.rows).toEqual([{ n: 7 }]);
    // The connection served on: the next turn's statement answers on it.
    expect((await pool.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    expect(pool.totalCount).toBe(1);
  });

  it("sends a write alone: a read of its turn answers while the write waits for another transaction's row lock", async () => {
    openPool();
    await watcher.query(`insert into ${table} values (1, 'Amina')`);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query(`update ${table} set name = 'Amina W.' where id = 1`);
      let written = false;
      const write = pool.query(`update ${table} set name = 'Amina Wanjiru' where id = 1`).then(() => (written = true));
      // Issued in the same turn as the write: on one connection it would wait behind it, and the
      // write waits for the commit below, which waits for these answers.
      const lockWaits = () =>
        pool.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
      let waits = (await lockWaits()).rows[0]!.n;
      for (let i = 0; i < 200 && waits === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        waits = (await lockWaits()).rows[0]!.n;
      }
      expect(waits).toBeGreaterThanOrEqual(1);
      expect(written).toBe(false);
      await holder.query("commit");
      await write;
    } finally {
      await holder.end();
    }
    expect((await watcher.query(`select name from ${table}`)).rows).toEqual([{ name: "Amina Wanjiru" }]);
  });

  it("sends a read whose runs were slow alone, beside the turn's quick reads", async () => {
    openPool();
    const slow = "select count(*)::int as n, pg_backend_pid() as pid from generate_series(1, $1::int)";
    await pool.query(slow, [2_000_000]);
    const [heavy, a, b] = await Promise.all([
      pool.query<{ n: number; pid: number }>(slow, [2_000_000]),
      pool.query<{ pid: number }>("select pg_backend_pid() as pid"),
      pool.query<{ pid: number }>("select pg_backend_pid() as pid"),
    ]);
    expect(heavy.rows[0]!.n).toBe(2_000_000);
    expect(a.rows[0]!.pid).toBe(b.rows[0]!.pid);
    expect(heavy.rows[0]!.pid).not.toBe(a.rows[0]!.pid);
  });

  it("never queues a later turn's statement behind an earlier turn's: it takes another connection", async () => {
    openPool();
    const order: string[] = [];
    const slow = Promise.all([pool.query("select count(*) from generate_series(1, 3000000)"), pool.query("select 'beside' as x")]).then(
      () => order.push("slow"),
    );
    await nextTurn();
    await nextTurn();
    const quick = pool.query("select 'quick' as x").then(() => order.push("quick"));
    await Promise.all([slow, quick]);
    expect(order).toEqual(["quick", "slow"]);
    expect(pool.totalCount).toBe(2);
  });

  it("rejects every statement of a turn whose connection is lost, drops that connection, and answers on a new one", async () => {
    openPool(1);
    const { rows } = await pool.query<{ pid: number }>("select pg_backend_pid() as pid");
    const lost = rows[0]!.pid;
    const turn = Promise.allSettled([
      pool.query("select count(*) from generate_series(1, 200000000)"),
      pool.query("select 2 as two"),
      pool.query(`select count(*) from ${table}`),
    ]);
    // Ended from outside while its first statement runs.
    for (let i = 0; i < 100; i++) {
      const active = await watcher.query(
        "select 1 from pg_stat_activity where pid = $1 and query like 'select count(*) from generate_series(1, 200000000)%'",
        [lost],
      );
      if (active.rowCount) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await watcher.query("select pg_terminate_backend($1)", [lost]);
    const settled = await turn;
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
    const next = await pool.query<{ pid: number }>("select pg_backend_pid() as pid");
    expect(next.rows[0]!.pid).not.toBe(lost);
    expect(pool.totalCount).toBe(1);
  });

  it("leaves transactions as they were: a client taken with connect() runs its statements in order, and a rollback undoes them", async () => {
    openPool(2);
    const client = await pool.connect();
    try {
      await client.query("begin");
      await client.query(`insert into ${table} values (4, 'Esther')`);
      // Meanwhile, a turn of statements outside it sees nothing of it.
      const outside = await Promise.all([pool.query(`select count(*)::int as n from ${table}`), pool.query("select 1")]);
      expect(outside[0]!.rows).toEqual([{ n: 0 }]);
      expect((await client.query(`select name from ${table}`)).rows).toEqual([{ name: "Esther" }]);
      await client.query("rollback");
    } finally {
      client.release();
    }
    expect((await watcher.query(`select count(*)::int as n from ${table}`)).rows).toEqual([{ n: 0 }]);
  });

  it("runs a prepared statement again under a fresh name when its table changed shape, inside a turn", async () => {
    openPool(1);
    await watcher.query(`insert into ${table} values (5, 'Faith')`);
    const text = `select * from ${table} where id = $1`;
    // Seen twice: prepared on the connection under a name.
    await pool.query(text, [5]);
    await pool.query(text, [5]);
    await watcher.query(`alter table ${table} add column county text default 'Kisumu'`);
    const [changed, other] = await Promise.all([pool.query(text, [5]), pool.query("select 'other' as x")]);
    expect(changed.rows).toEqual([{ id: 5, name: "Faith", county: "Kisumu" }]);
    expect(other.rows).toEqual([{ x: "other" }]);
    await watcher.query(`alter table ${table} drop column county`);
  });
});
