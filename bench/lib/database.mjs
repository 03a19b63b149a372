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
