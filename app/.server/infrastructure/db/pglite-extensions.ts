/**
 * The PostgreSQL extensions Jumbe's migrations create, as PGlite loads them (on PostgreSQL they come
 * with the server's contrib package). Every PGlite that runs the migrations opens with these: pg_trgm
 * for searching by any part of a name, a number or a message (migration 0022 on).
 *
 * Not btree_gin (decision 179): with it loaded, PGlite 0.5.16 spun inside the database on the
 * assistant's text search (a prefix tsquery against knowledge_passages, after a few hundred other
 * statements) and never answered, holding the process's only thread; migration 0089 builds the
 * indexes that start with the organisation only where the server offers btree_gin.
 */
export async function pgliteExtensions() {
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  return { pg_trgm };
}
