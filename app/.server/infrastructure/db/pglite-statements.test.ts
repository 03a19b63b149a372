import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGlite, types } from "@electric-sql/pglite";
import { withPreparedStatements } from "./pglite-statements";

// The prepared path must answer exactly what PGlite's own `query` answers: the same rows, types,
// counts and errors, with the same locking, so that everything above it (Drizzle, rawQuery) cannot
// tell the two apart.
let plain: PGlite;
let fast: PGlite;

// Drizzle's PGlite session reads dates as text and turns them into Dates itself.
const DRIZZLE = { [types.TIMESTAMPTZ]: (v: string) => v, [types.DATE]: (v: string) => v, [types.TIMESTAMP]: (v: string) => v };

beforeAll(async () => {
  plain = await PGlite.create("memory://");
  fast = withPreparedStatements(plain, { max: 3 });
  await plain.exec(`
    create table t (id serial primary key, name text unique, n bigint, price numeric(12,2), ok boolean, at timestamptz,
                    day date, tags text[], meta jsonb, raw bytea, u uuid default gen_random_uuid());
    insert into t (name, n, price, ok, at, day, tags, meta, raw)
      values ('Amina', 9007199254740993, 12.50, true, '2026-11-25T03:00:00Z', '2026-11-25', '{a,"b c"}', '{"k":[1,2]}', '\\x00ff'),
             ('Baraka', null, null, false, null, null, '{}', null, null);`);
});

afterAll(async () => {
  await plain.close();
});

const SELECT = "select id, name, n, price, ok, at, day, tags, meta, raw, u from t where name = any($1::text[]) order by id";

describe("withPreparedStatements", () => {
  it("answers the same rows, fields and types as PGlite's query, in object and array mode, run after run", async () => {
    for (const options of [undefined, { rowMode: "array" as const, parsers: DRIZZLE }]) {
      const expected = await plain.query(SELECT, [["Amina", "Baraka"]], options);
      for (let run = 0; run < 8; run++) {
        const got = await fast.query(SELECT, [["Amina", "Baraka"]], options);
        expect(got.rows).toEqual(expected.rows);
        expect(got.fields).toEqual(expected.fields);
      }
    }
    const [amina] = (await fast.query<{ at: Date; raw: Uint8Array; meta: unknown; n: unknown }>(SELECT, [["Amina"]])).rows;
    expect(amina!.at).toBeInstanceOf(Date);
    expect(Array.from(amina!.raw)).toEqual([0, 255]);
    expect(amina!.meta).toEqual({ k: [1, 2] });
  });

  it("writes parameters by the types Postgres infers: dates, JSON, bytes, booleans, arrays and nulls", async () => {
    const insert =
      "insert into t (name, at, meta, raw, ok, tags, n) values ($1, $2, $3, $4, $5, $6, $7) returning id, at, meta, raw, ok, tags, n";
    const values = ["Chebet", new Date("2026-01-02T03:04:05.678Z"), { m: "Mombasa" }, new Uint8Array([1, 2]), false, ["x", 'y"z'], null];
    const written = await fast.query<Record<string, unknown>>(insert, values);
    expect(written.affectedRows).toBe(1);
    expect(written.rows[0]).toMatchObject({
      at: new Date("2026-01-02T03:04:05.678Z"),
      meta: { m: "Mombasa" },
      ok: false,
      tags: ["x", 'y"z'],
      n: null,
    });
    expect(Array.from(written.rows[0]!.raw as Uint8Array)).toEqual([1, 2]);
    const updated = await fast.query("update t set ok = $1 where name = any($2::text[])", [true, ["Chebet", "Baraka"]]);
    expect(updated.affectedRows).toBe(2);
    expect((updated as { rowCount?: number }).rowCount).toBe(2);
    const selected = await fast.query("select name from t where ok order by name", []);
    expect(selected.affectedRows).toBe(0);
    expect(selected.rows).toEqual([{ name: "Amina" }, { name: "Baraka" }, { name: "Chebet" }]);
  });

  it("throws Postgres's error with its code, caches nothing broken, and keeps working", async () => {
    const insert = "insert into t (name) values ($1)";
    await expect(fast.query(insert, ["Amina"])).rejects.toMatchObject({ code: "23505", query: insert });
    await expect(fast.query("select nope from t", [])).rejects.toMatchObject({ code: "42703" });
    await expect(fast.query("select nope from t", [])).rejects.toMatchObject({ code: "42703" });
    await fast.query(insert, ["Dawit"]);
    expect((await fast.query("select count(*)::int as n from t where name = $1", ["Dawit"])).rows).toEqual([{ n: 1 }]);
  });

  it("keeps at most `max` statements prepared, closing the least used", async () => {
    for (let i = 0; i < 10; i++) await fast.query(`select ${i} as n, $1::text as s`, ["x"]);
    const prepared = await plain.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements");
    // The cache's three, and at most the batch of closings not sent yet.
    expect(prepared.rows[0]!.n).toBeLessThanOrEqual(3 + 1);
    expect((await fast.query("select 3 as n, $1::text as s", ["y"])).rows).toEqual([{ n: 3, s: "y" }]);
  });

  it("prepares a statement again after its table changed shape", async () => {
    await plain.exec("create table shape (a int); insert into shape values (1);");
    expect((await fast.query("select * from shape", [])).rows).toEqual([{ a: 1 }]);
    await plain.exec("alter table shape add column b int default 2");
    const again = await fast.query("select * from shape", []).catch((error: { code?: string }) => error);
    // Postgres either replans in place or refuses the cached plan once; the next run sees the new shape.
    if (!("rows" in again)) expect(again.code).toBe("0A000");
    expect((await fast.query("select * from shape", [])).rows).toEqual([{ a: 1, b: 2 }]);
  });

  it("runs a transaction's statements inside it, and keeps others out until it ends", async () => {
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inside = new Promise<void>((resolve) => (reached = resolve));
    const rolledBack = fast
      .transaction(async (tx) => {
        await tx.query("insert into t (name) values ($1)", ["Esther"]);
        expect((await tx.query("select count(*)::int as n from t where name = $1", ["Esther"])).rows).toEqual([{ n: 1 }]);
        reached();
        await gate;
        throw new Error("undo");
      })
      .catch((error: Error) => error.message);
    // Asked for while the transaction is open: it waits for the end and never sees the row.
    await inside;
    const outside = fast.query<{ n: number }>("select count(*)::int as n from t where name = $1", ["Esther"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect(await rolledBack).toBe("undo");
    expect((await outside).rows).toEqual([{ n: 0 }]);
    const committed = await fast.transaction(async (tx) => {
      await tx.query("insert into t (name) values ($1)", ["Faraji"]);
      return tx;
    });
    expect(() => committed.query("select 1", [])).toThrow("Transaction is closed");
    expect((await fast.query("select count(*)::int as n from t where name = $1", ["Faraji"])).rows).toEqual([{ n: 1 }]);
  });

  it("delivers a NOTIFY sent by a prepared statement to the client's listeners", async () => {
    const heard: string[] = [];
    const stop = await fast.listen("jumbe_test", (payload) => heard.push(payload));
    await fast.query("select pg_notify($1, $2)", ["jumbe_test", "habari"]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(heard).toEqual(["habari"]);
    await stop();
  });

  it("binds more than 32,767 values (the protocol's count is unsigned), through the unnamed path for a long text", async () => {
    const values = Array.from({ length: 40_000 }, (_, i) => i);
    const text = `select count(*)::int as n, sum(v)::bigint as total from (values ${values.map((_, i) => `($${i + 1}::int)`).join(", ")}) as x(v)`;
    const result = await fast.query<{ n: number; total: number }>(text, values);
    expect(result.rows).toEqual([{ n: 40_000, total: (40_000 * 39_999) / 2 }]);
  });

  it("passes everything else to the client, its getters included", async () => {
    expect(fast.ready).toBe(true);
    expect(fast.closed).toBe(false);
    expect((await fast.exec("select 1 as one"))[0]!.rows).toEqual([{ one: 1 }]);
  });

  it("leaves transaction control and other statements to PGlite's query", async () => {
    await fast.query("create temporary table scratch (a int)", []);
    expect((await fast.query("insert into scratch values ($1) returning a", [7])).rows).toEqual([{ a: 7 }]);
  });
});
