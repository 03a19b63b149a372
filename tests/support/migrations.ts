import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";

/**
 * Applies the project's migrations up to and including number `last` to `database` (a PGlite of the
 * test's own: the shared test database is migrated already), so a test can write rows as they were
 * before a migration and check what the migration makes of them.
 */
export async function migrateUpTo(database: PGlite, last: number) {
  const folder = mkdtempSync(path.join(os.tmpdir(), "jumbe-migrations-"));
  try {
    cpSync("drizzle", folder, { recursive: true });
    const journalFile = path.join(folder, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number }[] };
    journal.entries = journal.entries.filter((entry) => entry.idx <= last);
    writeFileSync(journalFile, JSON.stringify(journal));
    await migrate(drizzle(database), { migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
