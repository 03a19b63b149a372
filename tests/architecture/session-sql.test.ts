import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { applicationFiles, sessionProblems } from "./session-sql";

// Nothing of a PostgreSQL session outlives a transaction behind PgBouncer in transaction pooling
// (issue 78, decision 162): the application sends no session advisory lock, session SET, held
// cursor, kept temporary table, SQL-level PREPARE or LISTEN outside its dedicated connection, and
// gives the driver no startup parameter PgBouncer would refuse.
const root = path.resolve(import.meta.dirname, "../..");

describe("SQL that a transaction pooler would break", () => {
  test("each rule finds its case, and lets the transaction-scoped form and look-alikes pass", () => {
    const found = (text: string) => sessionProblems("fixture.ts", text).map((problem) => problem.rule.split(":")[0]);
    expect(found("await tx.execute(sql`select pg_advisory_lock(hashtext(${key}))`)")).toEqual(["session advisory lock"]);
    expect(found("await pool.query('select pg_try_advisory_lock(1)'); pool.query(\"select pg_advisory_unlock_all()\")")).toEqual([
      "session advisory lock",
      "session advisory lock",
    ]);
    expect(found("sql`select pg_advisory_xact_lock(hashtext(${key}))`; sql`select pg_try_advisory_xact_lock(2)`")).toEqual([]);
    expect(found("await db().execute(sql`set statement_timeout = '5s'`)")).toEqual(["session SET"]);
    expect(found('client.query("SET SESSION search_path TO jumbe")')).toEqual(["session SET"]);
    expect(found("sql`\n    set local statement_timeout = '5s'`")).toEqual([]);
    expect(found("sql`update wallets\n  set balance_cents = 1 where id = 2`; sql`on conflict do update set n = 1`")).toEqual([]);
    expect(found("sql`select set_config('app.org', ${id}, false)`")).toEqual(["session set_config"]);
    expect(found("sql`select set_config('app.org', ${id}, true)`")).toEqual([]);
    expect(found("rawQuery('reset all')")).toEqual(["RESET / DISCARD"]);
    expect(found('rawQuery("DISCARD ALL")')).toEqual(["RESET / DISCARD"]);
    expect(found('const words = { reset: "Reset code sent" }')).toEqual([]);
    expect(found("sql`declare c cursor with hold for select 1`")).toEqual(["cursor WITH HOLD"]);
    expect(found("sql`create temp table batch (id int)`")).toEqual(["temporary table kept past its transaction"]);
    expect(found("sql`create temporary table batch (id int) on commit drop`")).toEqual([]);
    expect(found("rawQuery(`prepare find (uuid) as select 1`)")).toEqual(["SQL-level PREPARE / DEALLOCATE"]);
    expect(found("rawQuery('deallocate all')")).toEqual(["SQL-level PREPARE / DEALLOCATE"]);
    expect(found("rawQuery(`listen ${channel}`)")).toEqual(["LISTEN outside the dedicated connection"]);
    expect(found("new pg.Pool({ connectionString: url, max, options: '-c statement_timeout=5s' })")).toEqual([
      "driver setting sent at start-up",
    ]);
    expect(found("new pg.Client({ connectionString: url, application_name: 'jumbe' })")).toEqual(["driver setting sent at start-up"]);
    expect(found("new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 })")).toEqual([]);
  });

  test("the application sends none", () => {
    const files = applicationFiles(root);
    expect(files).toContain("app/.server/infrastructure/db/client.ts");
    expect(files.length).toBeGreaterThan(500);
    const problems = files.flatMap((file) => sessionProblems(file, fs.readFileSync(path.join(root, file), "utf8")));
    expect(problems.map((problem) => `${problem.file}:${problem.line}: ${problem.rule} (${problem.text})`)).toEqual([]);
  });
});
