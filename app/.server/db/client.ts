import path from "node:path";
import { mkdirSync } from "node:fs";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import * as schema from "./schema";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** Parameterised SQL straight to the driver, for hot paths that send arrays (unnest) and skip the ORM. */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve(process.env.JUMBE_MIGRATIONS_DIR ?? "drizzle");

let current: DatabaseHandle | undefined;

/** The database every domain function uses. */
export function db(): Database {
  if (!current) throw new Error("Database not opened: call openDatabase() at start-up");
  return current.db;
}

/** Driver-level query on the open database; see DatabaseHandle.query. */
export function rawQuery<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]> {
  if (!current) throw new Error("Database not opened: call openDatabase() at start-up");
  return current.query<Row>(text, params);
}

export function databaseKind() {
  return current?.kind;
}

export function setCurrentDatabase(handle: DatabaseHandle) {
  current = handle;
}

export async function closeDatabase() {
  const handle = current;
  current = undefined;
  await handle?.close();
}

export interface OpenOptions {
  databaseUrl?: string;
  /** Connections per process on PostgreSQL. */
  poolSize?: number;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  migrate?: boolean;
}

/** PostgreSQL when a URL is given, otherwise embedded PGlite; migrations applied on open. */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.poolSize ?? 10)
    : await openPglite(options.dataDir ?? "memory://");
  if (options.migrate !== false) await migrateDatabase(handle);
  setCurrentDatabase(handle);
  return handle;
}

async function openPostgres(url: string, max: number): Promise<DatabaseHandle> {
  const { default: pg } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const pool = new pg.Pool({ connectionString: url, max });
  return {
    db: drizzle(pool, { schema }) as unknown as Database,
    kind: "postgres",
    query: async <Row>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as Row[],
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  return {
    db: drizzle(client, { schema }) as unknown as Database,
    kind: "pglite",
    query: async <Row>(text: string, params?: unknown[]) => (await client.query<Row>(text, params)).rows,
    close: () => client.close(),
  };
}

async function migrateDatabase(handle: DatabaseHandle) {
  if (handle.kind === "postgres") {
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } else {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  }
}

/** Runs raw SQL and returns its rows (PGlite and node-postgres both answer with `rows`). */
export async function queryRows<Row>(query: SQL): Promise<Row[]> {
  const result = (await db().execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}
