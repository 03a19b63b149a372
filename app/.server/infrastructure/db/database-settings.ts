/**
 * Settings every session on Jumbe's database takes, kept on the database itself (decision 184), so
 * that the pool's connections, PgBouncer's server connections and a replica's (the catalogue is
 * replicated) all have them without a `SET` per session, which a transaction pooler would not keep.
 *
 * `jit = off`: a plan over the partitioned tables counts every month's scan in its estimated cost,
 * so a statement that reads a few rows passes `jit_above_cost` and compiles thousands of functions
 * each time it runs. With 88 months of `messages` the demo seed's reply marking took 30 s to
 * compile and a few milliseconds to run (bench/results.md, "JIT and the partitioned messages").
 */
export const DATABASE_SETTINGS: Readonly<Record<string, string>> = { jit: "off" };

type Query = <Row>(text: string, params?: unknown[]) => Promise<Row[]>;

/**
 * Sets on the database (or, where Jumbe's role may not alter it, on the role) each of
 * DATABASE_SETTINGS it does not already carry, and on this session too. Run after the migrations at
 * every start, not as a migration: a database made from a template or restored from a dump without
 * `--create` has the tables but not the database's settings. Answers the settings it set.
 */
export async function keepDatabaseSettings(query: Query): Promise<string[]> {
  const [row] = await query<{ settings: string[] | null }>(
    `select array_agg(c) as settings from pg_db_role_setting s cross join lateral unnest(s.setconfig) c
     where (s.setdatabase = (select oid from pg_database where datname = current_database()) and s.setrole = 0)
        or (s.setrole = (select oid from pg_roles where rolname = current_user) and s.setdatabase in (0, (select oid from pg_database where datname = current_database())))`,
  );
  const kept = new Set(row?.settings ?? []);
  const missing = Object.entries(DATABASE_SETTINGS).filter(([name, value]) => !kept.has(`${name}=${value}`));
  for (const [name, value] of missing) {
    // Names and values are this module's constants, never input: quoted all the same.
    const setting = `${quoteIdentifier(name)} = ${quoteLiteral(value)}`;
    await query(
      `do $$ begin
         execute format('alter database %I set ${setting.replace(/'/g, "''")}', current_database());
       exception when insufficient_privilege then
         alter role current_user set ${setting};
       end $$`,
    );
    await query(`set ${setting}`);
  }
  return missing.map(([name, value]) => `${name}=${value}`);
}

function quoteIdentifier(name: string) {
  if (!/^[a-z_][a-z0-9_.]*$/.test(name)) throw new Error(`not a setting's name: ${name}`);
  return name;
}

function quoteLiteral(value: string) {
  return `'${value.replace(/'/g, "''")}'`;
}
