import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

// Vitest's global setup for the integration tests on PGlite: one database is created and migrated
// here, once per run, and dumped to a file; each test file's database starts from that dump. A new
// PGlite spends about 4 s on its empty data directory and the migrations; from the dump it is ready
// in under one, which is most of the PGlite pass's time across ninety files. On PostgreSQL
// (TEST_DATABASE_URL) each file creates its own database as before.

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

let folder: string | undefined;

export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide("pgliteTemplate", "");
    return;
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  // The extensions and migrations the app's own openDatabase uses (app/.server/db/client.ts).
  const client = await PGlite.create("memory://", { extensions: { pg_trgm } });
  await migrate(drizzle(client), { migrationsFolder: path.resolve("drizzle") });
  const dump = await client.dumpDataDir("none");
  await client.close();
  folder = mkdtempSync(path.join(os.tmpdir(), "jumbe-pglite-template-"));
  const file = path.join(folder, "migrated.tar");
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteTemplate", file);
  return () => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  };
}
