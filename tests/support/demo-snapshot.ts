import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { seedDemoData } from "~/.server/demo/seed";
import { RESETTABLE } from "./database";

/*
 * The demo data for a file whose every test starts from it (the role matrix, the session checks).
 * The first test seeds it for real and a copy of what it wrote is kept in the file's database (schema
 * demo_copy); each later test gets it back from that copy in a fraction of the seed's time (two to
 * ten seconds on PGlite, per test). The seed itself is tested where it is the subject (demo-seed,
 * demo-connected): there it runs every time.
 */

interface Copy {
  /** Each copied table with its writable columns (a generated column is computed again). */
  tables: { name: string; columns: string[] }[];
  /** Identity sequences as the seed left them. */
  sequences: { name: string; value: string }[];
}

/** The copy kept in each database (a worker's files share its modules; on PostgreSQL each file has a database of its own). */
const copies = new WeakMap<object, Copy>();

/** The demo data in a database that setup.ts has just emptied: seeded the first time, restored after. */
export async function demoData() {
  const database = db();
  const copy = copies.get(database);
  if (copy) return restore(copy);
  await seedDemoData();
  copies.set(database, await keep());
}

async function keep(): Promise<Copy> {
  const columns = await queryRows<{ table_name: string; column_name: string }>(
    db(),
    sql`select table_name, column_name from information_schema.columns
        where table_schema = 'public' and is_generated = 'NEVER'
        order by table_name, ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns) {
    if (RESETTABLE.includes(table_name)) byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  }
  const filled = await queryRows<{ name: string }>(
    db(),
    sql.raw(
      `select name from (values ${[...byTable.keys()].map((name) => `('${name}', exists (select 1 from "${name}"))`).join(", ")}) as t(name, filled) where filled`,
    ),
  );
  await db().execute(sql`drop schema if exists demo_copy cascade`);
  await db().execute(sql`create schema demo_copy`);
  const tables = filled.map(({ name }) => ({ name, columns: byTable.get(name)! }));
  for (const { name } of tables) await db().execute(sql.raw(`create table demo_copy."${name}" as table public."${name}"`));
  const sequences = await queryRows<{ name: string; value: string }>(
    db(),
    sql`select sequencename as name, last_value::text as value from pg_sequences
        where schemaname = 'public' and last_value is not null`,
  );
  return { tables, sequences };
}

async function restore({ tables, sequences }: Copy) {
  await db().transaction(async (tx) => {
    // The copy is consistent as a whole: foreign keys and triggers are not checked again row by row.
    await tx.execute(sql`set local session_replication_role = replica`);
    for (const { name, columns } of tables) {
      const list = columns.map((column) => `"${column}"`).join(", ");
      await tx.execute(sql.raw(`insert into public."${name}" (${list}) overriding system value select ${list} from demo_copy."${name}"`));
    }
    for (const { name, value } of sequences) await tx.execute(sql.raw(`select setval('public."${name}"', ${value})`));
  });
}
