import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { pgliteExtensions } from "~/.server/infrastructure/db/pglite-extensions";

// Vitest's global setup for the integration tests: one database is created and migrated here, once
// per run, and every test file's database starts from it.
// - PGlite: the migrated data directory is dumped to a file. A new PGlite spends about 4 s on an
//   empty data directory and the migrations; from the dump it is ready in under one, which was most
//   of the PGlite pass's time across ninety files.
// - PostgreSQL (TEST_DATABASE_URL): a migrated database that each file's database is created from
//   (CREATE DATABASE ... TEMPLATE: 0.1 s instead of 0.4 s with the migrations). Nobody connects to
//   it after this, as a template database requires.

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
    routeDeclarations: import("./in-process-app").RouteDeclaration[];
  }
}

const MIGRATIONS = path.resolve("drizzle");

export default async function setup(project: TestProject) {
  // Every route's declared permission, read once from its module for every file (tests/support/setup.ts).
  const { routeDeclarations } = await import("./in-process-app");
  project.provide("routeDeclarations", await routeDeclarations());
  project.provide("pgliteTemplate", "");
  project.provide("postgresTemplate", "");
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const { default: pg } = await import("pg");
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    const name = `jumbe_template_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    try {
      await migrate(drizzle(pool), { migrationsFolder: MIGRATIONS });
    } finally {
      await pool.end();
    }
    project.provide("postgresTemplate", name);
    return async () => {
      // And the demo the built servers start from, when one of them made it (built-server.ts).
      for (const made of [`${name}_demo`, `${name}_demo_making`, name])
        await admin.query(`drop database if exists ${made} with (force)`).catch(() => {});
      rmSync(path.join(os.tmpdir(), `${name}_demo-media`), { recursive: true, force: true });
      rmSync(path.join(os.tmpdir(), `${name}_demo.dump`), { force: true });
      await admin.end();
    };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  // The extensions and migrations the app's own openDatabase uses (app/.server/infrastructure/db/client.ts).
  const client = await PGlite.create("memory://", { extensions: await pgliteExtensions() });
  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
  const dump = await client.dumpDataDir("none");
  await client.close();
  const folder = mkdtempSync(path.join(os.tmpdir(), "jumbe-pglite-template-"));
  const file = path.join(folder, "migrated.tar");
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteTemplate", file);
  return () => rmSync(folder, { recursive: true, force: true });
}
