import { sql } from "drizzle-orm";
import { db, databaseKind } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { processState } from "../../../infrastructure/process-state";
import { m } from "~/paraglide/messages";

/**
 * The System tab's database statistics: size, largest tables, connections (pg_stat_activity), and the
 * slowest statements where pg_stat_statements is installed. Each part is read on its own: one that
 * the server does not offer (PGlite has no other connections; the extension may be absent) says so
 * in words instead of failing the page.
 */
export interface DatabaseStats {
  kind: "pglite" | "postgres";
  version: string | null;
  sizeBytes: number | null;
  tables: { name: string; totalBytes: number; rows: number | null }[];
  connections: { state: string; count: number }[] | null;
  /** Why there are no connections, in English; `connectionsNoteId` is its message for the page (the statistics are cached for every reader). */
  connectionsNote: string | null;
  connectionsNoteId: DatabaseNoteId | null;
  slowest: { query: string; calls: number; meanMs: number; totalMs: number }[] | null;
  slowestNote: string | null;
  slowestNoteId: DatabaseNoteId | null;
}

/** A note about what the database does not offer: one of the catalogue's messages (`admin_db_note_*`). */
export type DatabaseNoteId = Extract<keyof typeof m, `admin_db_note_${string}`>;

/** A note's English words, kept beside its id. */
const english = (id: DatabaseNoteId | null) =>
  id ? (m[id] as (inputs: object, options: { locale: "en" }) => string)({}, { locale: "en" }) : null;

async function optional<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

/** The statistics change slowly and pg_database_size reads every file: kept this long in the process. */
export const DATABASE_STATS_CACHE_MS = 15_000;

const cache = processState("admin-system-database-stats", () => ({ stats: null as DatabaseStats | null, at: 0 }));

/** The statistics, read at most once per DATABASE_STATS_CACHE_MS in this process. */
export async function databaseStats(options: { fresh?: boolean } = {}): Promise<DatabaseStats> {
  if (!options.fresh && cache.stats && Date.now() - cache.at < DATABASE_STATS_CACHE_MS) return cache.stats;
  const stats = await readDatabaseStats();
  cache.stats = stats;
  cache.at = Date.now();
  return stats;
}

async function readDatabaseStats(): Promise<DatabaseStats> {
  const kind = databaseKind() === "postgres" ? "postgres" : "pglite";
  const [basics, tables, connections, extension] = await Promise.all([
    optional(() =>
      queryRows<{ size: number | string; version: string }>(
        db(),
        sql`select pg_database_size(current_database()) as size, current_setting('server_version') as version`,
      ),
    ),
    optional(() =>
      queryRows<{ name: string; total: number | string; rows: number | string | null }>(
        db(),
        sql`
        select c.relname as name, pg_total_relation_size(c.oid) as total, case when c.reltuples < 0 then null else c.reltuples::bigint end as rows
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname = 'public'
        order by pg_total_relation_size(c.oid) desc limit 8`,
      ),
    ),
    kind === "pglite"
      ? Promise.resolve(null)
      : optional(() =>
          queryRows<{ state: string | null; n: number }>(
            db(),
            sql`
            select coalesce(state, 'background') as state, count(*)::int as n from pg_stat_activity
            where datname = current_database() group by 1 order by 2 desc`,
          ),
        ),
    optional(() =>
      queryRows<{ present: boolean }>(
        db(),
        sql`select exists (select 1 from pg_extension where extname = 'pg_stat_statements') as present`,
      ),
    ),
  ]);
  let slowest: DatabaseStats["slowest"] = null;
  let slowestNoteId: DatabaseNoteId | null = null;
  if (kind === "pglite") slowestNoteId = "admin_db_note_pglite_statements";
  else if (!extension?.[0]?.present) slowestNoteId = "admin_db_note_statements_absent";
  else {
    const rows = await optional(() =>
      queryRows<{ query: string; calls: number | string; mean: number; total: number }>(
        db(),
        sql`
        select s.query, s.calls, s.mean_exec_time as mean, s.total_exec_time as total
        from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database() order by s.mean_exec_time desc limit 5`,
      ),
    );
    if (rows)
      slowest = rows.map((r) => ({
        query: r.query.replace(/\s+/g, " ").slice(0, 300),
        calls: Number(r.calls),
        meanMs: Math.round(Number(r.mean) * 10) / 10,
        totalMs: Math.round(Number(r.total)),
      }));
    else slowestNoteId = "admin_db_note_statements_unreadable";
  }
  const connectionsNoteId: DatabaseNoteId | null =
    kind === "pglite" ? "admin_db_note_pglite_connections" : connections ? null : "admin_db_note_connections_unreadable";
  return {
    kind,
    version: basics?.[0]?.version ?? null,
    sizeBytes: basics?.[0] ? Number(basics[0].size) : null,
    tables: (tables ?? []).map((t) => ({ name: t.name, totalBytes: Number(t.total), rows: t.rows === null ? null : Number(t.rows) })),
    connections: connections ? connections.map((c) => ({ state: c.state ?? "background", count: Number(c.n) })) : null,
    connectionsNote: english(connectionsNoteId),
    connectionsNoteId,
    slowest,
    slowestNote: english(slowestNoteId),
    slowestNoteId,
  };
}
