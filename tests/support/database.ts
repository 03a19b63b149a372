import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { inject } from "vitest";
import { getTableName, is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import * as schema from "~/.server/infrastructure/db/schema";
import { closeDatabase, db, openDatabase } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";

let droppable: { adminUrl: string; name: string } | undefined;

export async function openTestDatabase() {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    // From the run's migrated dump (tests/support/database-template.ts) when there is one; the
    // migrations still run, and find nothing to do.
    const template = inject("pgliteTemplate");
    const loadDataDir = template ? new Blob([readFileSync(template)]) : undefined;
    await openDatabase({ dataDir: "memory://", loadDataDir });
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

/** The URL of this file's PostgreSQL database, or undefined on PGlite. */
export function testDatabaseUrl() {
  if (!droppable) return undefined;
  const url = new URL(droppable.adminUrl);
  url.pathname = `/${droppable.name}`;
  return url.toString();
}

export async function closeTestDatabase() {
  await closeDatabase();
  if (droppable) await adminQuery(droppable.adminUrl, `drop database if exists ${droppable.name} with (force)`);
  droppable = undefined;
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

/** Every table the schema declares, by its SQL name: a table added to the schema is emptied too. */
export const SCHEMA_TABLES = (Object.values(schema) as unknown[])
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableName(table))
  .sort();

/** Tables the migrations fill with reference data (the price list): kept between tests. */
const REFERENCE_TABLES = new Set(["billing_plans"]);

/**
 * Empties every table between tests, except the reference data. Only the tables a test wrote to are
 * truncated (rows left, or an identity it drew from): truncating all ninety took 50–250 ms a test,
 * most of it on tables nobody touched.
 */
export async function resetTables() {
  const written = await queryRows<{ name: string }>(db(), sql.raw(WRITTEN_TABLES_SQL));
  if (!written.length) return;
  await db().execute(sql.raw(`truncate table ${written.map(({ name }) => `"${name}"`).join(", ")} restart identity cascade`));
}

/** The tables emptied between tests: all but the reference data. */
export const RESETTABLE = SCHEMA_TABLES.filter((name) => !REFERENCE_TABLES.has(name));

/** The resettable tables holding a row, or whose identity sequence has been drawn from since its last restart. */
const WRITTEN_TABLES_SQL = `
  select name from (values ${RESETTABLE.map((name) => `('${name}', exists (select 1 from "${name}"))`).join(", ")}) as t(name, filled)
  where filled
  union
  select owner.relname from pg_sequences s
    join pg_class seq on seq.relname = s.sequencename and seq.relkind = 'S'
    join pg_depend d on d.objid = seq.oid and d.deptype in ('a', 'i')
    join pg_class owner on owner.oid = d.refobjid
  where s.schemaname = 'public' and s.last_value is not null
    and owner.relname in (${RESETTABLE.map((name) => `'${name}'`).join(", ")})`;
