import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { inject } from "vitest";
import { getTableName, is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import * as schema from "~/.server/infrastructure/db/schema";
import { closeDatabase, db, openDatabase, setCurrentDatabase, type DatabaseHandle } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { DATABASE_SETTINGS } from "~/.server/infrastructure/db/database-settings";

let droppable: { adminUrl: string; name: string } | undefined;

/**
 * The PGlite this worker keeps from one test file to the next (its files share their modules,
 * decision 058), with the shape of its schema when it was opened. A new PGlite costs about 0.8 s of
 * CPU a file; emptying the tables the last file wrote to costs a few milliseconds. A file that left
 * the schema changed (a table, column, function, trigger or schema of its own) or closed the
 * database gets a new one.
 */
let kept: { handle: DatabaseHandle; shape: string } | undefined;

export async function openTestDatabase() {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    if (kept && (await stillAsOpened(kept))) {
      setCurrentDatabase(kept.handle);
      await kept.handle.query("reset all");
      // A new session would start with the database's own settings (decision 184); RESET ALL goes back
      // to this session's start, from before the first opening kept them on the database.
      for (const [name, value] of Object.entries(DATABASE_SETTINGS)) await kept.handle.query(`set ${name} = '${value}'`);
      await resetTables();
      return;
    }
    await kept?.handle.close().catch(() => {});
    kept = undefined;
    // From the run's migrated dump (tests/support/database-template.ts) when there is one; the
    // migrations still run, and find nothing to do.
    const template = inject("pgliteTemplate");
    const loadDataDir = template ? new Blob([readFileSync(template)]) : undefined;
    const handle = await openDatabase({ dataDir: "memory://", loadDataDir });
    kept = { handle, shape: await schemaShape(handle) };
    return;
  }
  const name = `jumbe_t_${randomBytes(6).toString("hex")}`;
  // From the run's migrated template (tests/support/database-template.ts); the migrations still run,
  // and find nothing to do.
  const template = inject("postgresTemplate");
  await adminQuery(adminUrl, `create database ${name}${template ? ` template ${template}` : ""}`);
  droppable = { adminUrl, name };
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await openDatabase({ databaseUrl: url.toString() });
}

/** Every relation, column, constraint, function, trigger and schema outside the system's own, as one digest. */
async function schemaShape(handle: DatabaseHandle) {
  const [row] = await handle.query<{ shape: string }>(`
    select md5(string_agg(x, ',' order by x)) as shape from (
      select 'n:' || nspname as x from pg_namespace
      union all
      select 'r:' || n.nspname || '.' || c.relname || ':' || c.relkind::text from pg_class c
        join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
      union all
      select 'a:' || a.attrelid::regclass::text || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and a.attnum > 0 and not a.attisdropped
      union all
      select 'k:' || conname || ':' || pg_get_constraintdef(oid) from pg_constraint where connamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
      union all
      select 'f:' || p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema')
      union all
      select 't:' || tgrelid::regclass::text || '.' || tgname from pg_trigger where not tgisinternal
    ) s`);
  return row!.shape;
}

/** Whether the kept PGlite is open, and its schema is as it was opened (a file may have closed or changed it). */
async function stillAsOpened({ handle, shape }: { handle: DatabaseHandle; shape: string }) {
  try {
    return (await schemaShape(handle)) === shape;
  } catch {
    return false;
  }
}

/** The URL of this file's PostgreSQL database, or undefined on PGlite. */
export function testDatabaseUrl() {
  if (!droppable) return undefined;
  const url = new URL(droppable.adminUrl);
  url.pathname = `/${droppable.name}`;
  return url.toString();
}

export async function closeTestDatabase() {
  // The worker's kept PGlite stays open for its next file; a database the file opened itself is closed.
  if (kept && currentIs(kept.handle)) return;
  await closeDatabase();
  if (droppable) await adminQuery(droppable.adminUrl, `drop database if exists ${droppable.name} with (force)`);
  droppable = undefined;
}

function currentIs(handle: DatabaseHandle) {
  try {
    return db() === handle.db;
  } catch {
    return false;
  }
}

/** One statement on the admin connection of the test cluster (create and drop databases). */
export async function adminQuery(url: string, text: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * PGlite's Postgres reads the process's clock, so a test's fake `Date` reaches it. With statistics
 * not yet written it arms a timer for their flush (10 s ahead, on that clock: PGlite's setitimer is a
 * setTimeout). Once the test has put the clock back, that moment is a month or a year away, more than
 * Node's setTimeout holds (2^31-1 ms): Node runs it after 1 ms ("TimeoutOverflowWarning"), Postgres
 * finds it not yet due and arms it again, at every statement, until the real clock gets there. A
 * worker keeps its PGlite from file to file (decision 059), so the loop ran under every later file of
 * the worker (organisation.test.ts's erasure a month and a year ahead: about 15,000 warnings in a
 * PGlite pass). Forcing the flush writes the statistics and takes the timer off; run before each test
 * (tests/support/setup.ts), it ends the loop where the next test starts. On PostgreSQL the server's
 * clock is the server's own: nothing to do.
 */
export async function disarmStatisticsTimer() {
  if (process.env.TEST_DATABASE_URL) return;
  await db().execute(sql`select pg_stat_force_next_flush()`);
}

/** Every table the schema declares, by its SQL name: a table added to the schema is emptied too. */
export const SCHEMA_TABLES = (Object.values(schema) as unknown[])
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableName(table))
  .sort();

/** Tables the migrations fill with reference data (the price list): kept between tests. */
const REFERENCE_TABLES = new Set(["billing_plans"]);

/** A table holding more rows than this is truncated; a smaller one has its rows deleted. */
const DELETE_AT_MOST = 500;

/**
 * Empties every table between tests, except the reference data, and restarts the identity sequences
 * drawn from. Only the tables a test wrote to are touched (rows left, or an identity it drew from).
 * Their rows are deleted with foreign keys and triggers off, as the demo copy is restored: TRUNCATE
 * gives each table and index new files, about 70 ms a reset on PGlite against a few for the handful
 * of rows a test leaves. A table holding many rows (a seeded demo) is still truncated.
 *
 * The tables are locked first, as TRUNCATE locks them: a write still on its way from the last test
 * (a job, a log line) lands before the reset or waits until after it, and draws its identity from
 * the restarted sequence then, never before it (on PostgreSQL that left a row whose id the next
 * test was given again).
 */
export async function resetTables() {
  const written = await queryRows<{ kind: "table" | "sequence"; name: string; n: number; owner: string }>(db(), sql.raw(WRITTEN_SQL));
  if (!written.length) return;
  const rows = new Map<string, number>();
  for (const { kind, name, n, owner } of written) {
    if (kind === "table") rows.set(name, n);
    else if (!rows.has(owner)) rows.set(owner, 0);
  }
  const tables = [...rows.keys()].map((name) => `"${name}"`);
  const large = [...rows].filter(([, n]) => n > DELETE_AT_MOST).map(([name]) => `"${name}"`);
  const sequences = written.filter((row) => row.kind === "sequence");
  // A write of the last test that holds one of these tables and waits for another we locked is a
  // deadlock PostgreSQL may end on our side (40P01): that write then finishes, and the reset is done again.
  for (let attempt = 1; ; attempt++) {
    try {
      await db().transaction(async (tx) => {
        await tx.execute(sql.raw(`lock table ${tables.join(", ")} in access exclusive mode`));
        await tx.execute(sql`set local session_replication_role = replica`);
        for (const [name, n] of rows) if (n <= DELETE_AT_MOST) await tx.execute(sql.raw(`delete from "${name}"`));
        if (large.length) await tx.execute(sql.raw(`truncate table ${large.join(", ")} cascade`));
        for (const { name, n } of sequences) await tx.execute(sql.raw(`select setval('${name}', ${Number(n)}, false)`));
      });
      return;
    } catch (error) {
      if (attempt >= 5 || !isDeadlock(error)) throw error;
    }
  }
}

/** PostgreSQL's "deadlock detected", as the driver gives it or wrapped by drizzle. */
function isDeadlock(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as Error & { code?: string }).code === "40P01") return true;
  }
  return false;
}

/** The tables emptied between tests: all but the reference data. */
export const RESETTABLE = SCHEMA_TABLES.filter((name) => !REFERENCE_TABLES.has(name));

/**
 * The resettable tables holding a row (with their count up to one past DELETE_AT_MOST), and the
 * identity sequences they own that were drawn from since their last restart (with their start and
 * their table).
 */
const WRITTEN_SQL = `
  select 'table' as kind, name, n, name as owner from (values ${RESETTABLE.map((name) => `('${name}', (select count(*)::int from (select 1 from "${name}" limit ${DELETE_AT_MOST + 1}) r))`).join(", ")}) as t(name, n)
  where n > 0
  union all
  select 'sequence', quote_ident(s.schemaname) || '.' || quote_ident(s.sequencename), s.start_value::int, owner.relname::text from pg_sequences s
    join pg_class seq on seq.relname = s.sequencename and seq.relkind = 'S'
    join pg_depend d on d.objid = seq.oid and d.deptype in ('a', 'i')
    join pg_class owner on owner.oid = d.refobjid
  where s.schemaname = 'public' and s.last_value is not null
    and owner.relname in (${RESETTABLE.map((name) => `'${name}'`).join(", ")})`;

/**
 * A signature of every table's rows, one comparable text per table (sessions by id only: a request
 * touches their last use; rate_limits left out: every request counts in it), read in one statement:
 * the role matrix and the session checks compare them around each request. A row's `xmin` is the
 * transaction that wrote it, new on every insert and update (an update writes a new row version, even
 * one that sets the same values), so the row count and the sum of the `xmin`s change with any
 * committed write; reading them costs a scan, not the rows as text sorted and hashed (on the demo data
 * 23 ms a call before, about 4 ms now; the role matrix calls it 354 times). The role
 * matrix's proofs check that it sees each allowed form's change.
 */
export async function tableDigests(): Promise<Record<string, string>> {
  const tables = SCHEMA_TABLES.filter((table) => table !== "rate_limits");
  const columns = tables.map((table) =>
    table === "sessions"
      ? `(select coalesce(string_agg(id, ',' order by id), '') from sessions) as "${table}"`
      : `(select count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) from "${table}") as "${table}"`,
  );
  const [row] = await queryRows<Record<string, string>>(db(), sql.raw(`select ${columns.join(", ")}`));
  return Object.fromEntries(tables.map((table) => [table, String(row![table])]));
}
