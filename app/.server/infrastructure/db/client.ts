import path from "node:path";
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { nameStatements, StatementNames } from "./pg-statements";
import { pipelineAutocommitQueries } from "./pipeline";
import { withPreparedStatements } from "./pglite-statements";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { log } from "../log";
import { noteDatabaseError, setAvailabilityProbe } from "./availability";
import { noteStatement } from "./statement-count";
import { processState } from "../process-state";
import { checkChannel, createPgListener, type ChannelListener } from "./pg-listener";
import { guardTransactions, inOpenTransaction, StatementOutsideTransaction } from "./transaction-guard";
import { attachReplica, detachReplica, replicaForRead } from "./replica";
import { pgliteExtensions } from "./pglite-extensions";
import { keepDatabaseSettings } from "./database-settings";

// Every statement the ORM sends (transactions included) is counted for its request's Server-Timing.
const counting = { logQuery: noteStatement };

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** The database, or a transaction on it: what a function that may run inside a caller's transaction takes. */
export type Executor = Database | Parameters<Parameters<Database["transaction"]>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** Parameterised SQL straight to the driver, for hot paths that send arrays (unnest) and skip the ORM. */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** LISTEN on a channel (pg_notify's, delivered once the sender's transaction commits); answers the unsubscribe. */
  listen(channel: string, listener: ChannelListener): Promise<() => Promise<void>>;
  /** Resolves once every notification committed before the call has reached this process's subscribers; rejects while not listening. */
  listenerCaughtUp(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve(process.env.JUMBE_MIGRATIONS_DIR ?? "drizzle");

/** The open database, once per process (kept across development reloads). */
const state = processState<{ current?: DatabaseHandle }>("database", () => ({}));

/** The database every domain function uses. */
export function db(): Database {
  if (!state.current) throw new Error("Database not opened: call openDatabase() at start-up");
  return state.current.db;
}

/**
 * The database for a heavy read (analytics, exports, the console's figures): the read replica's when
 * one is configured and it can serve the calling request (decision 163: in a request's read scope,
 * reachable, within the maximum lag, past the person's own last write), else the primary's, as db().
 * Jobs and webhooks have no read scope: they always get the primary. Tenant conditions stay in the query.
 * `after`: a primary position (replica.ts's primaryWritePosition) the read must also see, for
 * writes made on the person's behalf outside their requests (a job's).
 */
export async function readDb(options: { after?: bigint | null } = {}): Promise<Database> {
  return (await replicaForRead(options.after ?? null)) ?? db();
}

/** Driver-level query on the open database; see DatabaseHandle.query. */
export function rawQuery<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]> {
  if (!state.current) throw new Error("Database not opened: call openDatabase() at start-up");
  noteStatement();
  return state.current.query<Row>(text, params);
}

/**
 * Hears pg_notify on `channel` in this process, whichever instance sent it: PostgreSQL through one
 * dedicated LISTEN connection, PGlite through its own LISTEN. Answers the unsubscribe.
 */
export function listenChannel(channel: string, listener: ChannelListener) {
  if (!state.current) throw new Error("Database not opened: call openDatabase() at start-up");
  return state.current.listen(channel, listener);
}

/** See DatabaseHandle.listenerCaughtUp. */
export function listenerCaughtUp() {
  if (!state.current) throw new Error("Database not opened: call openDatabase() at start-up");
  return state.current.listenerCaughtUp();
}

/**
 * A GET of this instance wrote something that others' copies are dropped for by its NOTIFY (the
 * shell's counts, decision 182): answers once this instance's listener has heard it, so the
 * person's next request on this instance never meets the copy from before. Not listening (the
 * caches are off then), it answers at once.
 */
export async function heardOwnChange() {
  try {
    await listenerCaughtUp();
  } catch {
    // Nothing listens: nothing is kept that the change could leave stale.
  }
}

/** The open database's handle (undefined when none is open): what a subscriber compares to know the database it listens to is still the one open. */
export function currentDatabaseHandle(): DatabaseHandle | undefined {
  return state.current;
}

export function databaseKind() {
  return state.current?.kind;
}

export function setCurrentDatabase(handle: DatabaseHandle) {
  state.current = handle;
}

export async function closeDatabase() {
  const handle = state.current;
  state.current = undefined;
  await handle?.close();
}

/**
 * What `databaseUrl` reaches (decision 162): PostgreSQL itself, or PgBouncer in transaction pooling,
 * where each transaction may land on another server connection and nothing of a session outlives it.
 */
export type DatabasePooler = "none" | "pgbouncer-transaction";

export interface OpenOptions {
  databaseUrl?: string;
  /** `pgbouncer-transaction`: no statements named per connection, and `directUrl` for what needs a session. */
  pooler?: DatabasePooler;
  /** PostgreSQL itself, behind the pooler: the LISTEN connection and the migrations. Required with a pooler. */
  directUrl?: string;
  /** Connections per process on PostgreSQL. */
  poolSize?: number;
  /** A streaming replica of PostgreSQL for heavy reads (decision 163); PostgreSQL only. */
  replica?: { url: string; maxLagMs: number };
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** PGlite only: start from this dump of a data directory (PGlite's dumpDataDir) instead of an empty one. */
  loadDataDir?: Blob;
  migrate?: boolean;
}

/** PostgreSQL when a URL is given, otherwise embedded PGlite; migrations applied on open. */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  const direct = sessionUrl(options);
  if (options.replica && !options.databaseUrl) throw new Error("A read replica needs PostgreSQL (DATABASE_URL): PGlite has none");
  const handle = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.poolSize ?? 10, direct, options.replica)
    : await openPglite(options.dataDir ?? "memory://", options.loadDataDir);
  if (options.migrate !== false) await (direct ? migrateDirect(direct) : migrateDatabase(handle));
  setCurrentDatabase(handle);
  return handle;
}

/**
 * PostgreSQL's own address behind a transaction pooler, or undefined without one. A pooler without
 * it is refused: LISTEN and the migrations would go through the pooler and quietly lose their session.
 */
function sessionUrl(options: OpenOptions) {
  const pooler = options.pooler ?? "none";
  if (pooler === "none") return undefined;
  if (!options.databaseUrl || !options.directUrl)
    throw new Error(`A database behind ${pooler} needs both its URL and PostgreSQL's direct URL (for LISTEN and the migrations)`);
  return options.directUrl;
}

/** How long a query waits for a connection while PostgreSQL does not answer, before it fails (503). */
const CONNECT_TIMEOUT_MS = 3000;

/**
 * A pool that rides through PostgreSQL going away (decision 011). PostgreSQL closes connections on
 * restart, failover, idle_session_timeout or pg_terminate_backend; an idle pooled client then emits
 * 'error', and an EventEmitter 'error' without a listener ends the process. The pool drops such
 * clients itself (also a checked-out one once released), so the handlers only log and note that the
 * database may be down; the next query opens a fresh connection.
 */
async function openPostgres(url: string, max: number, directUrl?: string, replica?: OpenOptions["replica"]): Promise<DatabaseHandle> {
  const { default: pg } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  // Statements of one turn of the event loop sent together (decision 185); not through a transaction pooler.
  const pipeline = !directUrl;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    pipeline,
  });
  const dropped = (error: Error) => {
    log().warn({ sqlstate: (error as { code?: unknown }).code, reason: error.message }, "database connection lost");
    noteDatabaseError(error);
  };
  // Every client logs its own loss, idle or checked out (a transaction between two statements has
  // no pool listener); the pool's event for an idle one is the same loss again.
  // Each statement parsed and planned once per connection (decision 062); not behind a transaction
  // pooler, whose next transaction may run on a server connection that never prepared it (and
  // PgBouncer 1.18 forwards no prepared statement at all): decision 162.
  const names = directUrl ? undefined : new StatementNames();
  pool.on("connect", (client) => {
    client.on("error", dropped);
    if (names) nameStatements(client, names);
  });
  pool.on("error", (error) => void noteDatabaseError(error));
  if (pipeline) pipelineAutocommitQueries(pool);
  guardPool(pool);
  const query = async <Row>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as Row[];
  setAvailabilityProbe(() => query("select 1"));
  // LISTEN holds its session for as long as the process listens: PostgreSQL itself, never the pooler.
  const listener = createPgListener(directUrl ?? url);
  if (replica) await attachReplica(pool, replica, (replicaPool) => drizzle(replicaPool, { schema, logger: counting }) as Database);
  return {
    db: guardTransactions(drizzle(pool, { schema, logger: counting }) as Database),
    kind: "postgres",
    query,
    listen: listener.listen,
    listenerCaughtUp: listener.caughtUp,
    close: async () => {
      setAvailabilityProbe(undefined);
      await detachReplica();
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * A statement sent around the sender's own open transaction (decision 043). On PostgreSQL it takes a
 * second connection and works, unless the pool is exhausted: refused in development and tests so the
 * mistake is found there, logged in production.
 */
function guardPool(pool: import("pg").Pool) {
  const check = (what: string) => {
    if (!inOpenTransaction()) return;
    if (process.env.NODE_ENV !== "production") throw new StatementOutsideTransaction(what);
    log().error({ err: new StatementOutsideTransaction(what) }, "statement outside its transaction");
  };
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  Object.assign(pool, {
    query: (...args: unknown[]) => {
      check("A statement");
      return query(...args);
    },
    connect: (...args: unknown[]) => {
      check("A new connection");
      return connect(...args);
    },
  });
}

/**
 * PGlite's compiled WebAssembly and its file bundle, read once per process: a process that opens
 * several databases (a test worker opens one per file) compiles the 9 MB module once, not at each
 * opening (about a third of an opening's CPU).
 */
let assets: Promise<{ pgliteWasmModule: WebAssembly.Module; fsBundle: Blob }> | undefined;
function pgliteAssets() {
  assets ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    const [wasm, bundle] = await Promise.all([readFile(path.join(dist, "pglite.wasm")), readFile(path.join(dist, "pglite.data"))]);
    return { pgliteWasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([bundle]) };
  })();
  return assets;
}

async function openPglite(dataDir: string, loadDataDir?: Blob): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const [{ pgliteWasmModule, fsBundle }, extensions] = await Promise.all([pgliteAssets(), pgliteExtensions()]);
  const opened = await PGlite.create(dataDir, {
    extensions,
    pgliteWasmModule,
    fsBundle,
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  // Each statement parsed once and run in one call into the database (decision 041).
  const client = withPreparedStatements(opened);
  return {
    db: guardTransactions(drizzle(client, { schema, logger: counting }) as Database),
    kind: "pglite",
    query: async <Row>(text: string, params?: unknown[]) => (await client.query<Row>(text, params)).rows,
    // PGlite is this process's only connection: its LISTEN hears every NOTIFY, and is never lost.
    listen: async (channel, listener) => {
      const stop = await client.listen(checkChannel(channel), listener.onMessage);
      return () => stop();
    },
    // A NOTIFY is handed to the subscribers as the statement that committed it answers, before its caller resumes.
    listenerCaughtUp: async () => undefined,
    close: () => client.close(),
  };
}

/** The migrations on one connection to PostgreSQL itself, closed once they are done (behind a pooler). */
async function migrateDirect(directUrl: string) {
  const { default: pg } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const client = new pg.Client({ connectionString: directUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    await keepDatabaseSettings(async (text, params) => (await client.query(text, params)).rows);
  } finally {
    await client.end();
  }
}

async function migrateDatabase(handle: DatabaseHandle) {
  if (handle.kind === "postgres") {
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } else {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  }
  await keepDatabaseSettings(handle.query);
}
