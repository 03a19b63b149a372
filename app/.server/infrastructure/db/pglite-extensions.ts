/**
 * The PostgreSQL extensions Jumbe's migrations create, as PGlite loads them (on PostgreSQL they come
 * with the server's contrib package). Every PGlite that runs the migrations opens with these:
 * pg_trgm for searching by any part of a name, a number or a message (migration 0018 on), btree_gin
 * for a trigram index that starts with the organisation (one tenant's matches, not everyone's).
 */
export async function pgliteExtensions() {
  const [{ pg_trgm }, { btree_gin }] = await Promise.all([
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("@electric-sql/pglite/contrib/btree_gin"),
  ]);
  return { pg_trgm, btree_gin };
}
