// Read-only access to the database a stopped benchmark server used: PostgreSQL through its URL, or
// PGlite through the server's DATA_DIR (PGlite's files serve one process at a time, so only after
// the server has exited).
import path from "node:path";

/** Runs `work(query)` against the database, then closes it; query(text, params) resolves to rows. */
export async function withDatabase({ databaseUrl, dataDir }, work) {
  if (databaseUrl) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await work(async (text, params) => (await client.query(text, params)).rows);
    } finally {
      await client.end();
    }
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const client = await PGlite.create(path.join(dataDir, "pglite"));
  try {
    return await work(async (text, params) => (await client.query(text, params)).rows);
  } finally {
    await client.close();
  }
}

/** The settings that decide whether a PostgreSQL commit waits for the disk (null for PGlite). */
export async function postgresDurability(databaseUrl) {
  if (!databaseUrl) return null;
  const rows = await withDatabase({ databaseUrl }, (query) =>
    query(`select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method') order by name`),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}
