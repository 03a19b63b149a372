import { db, type Database } from "./client";

interface Preparable<Values, Result> {
  prepare(name: string): { execute(values?: Values): Promise<Result> };
}

// Left unnamed for the ORM: node-postgres then takes the text as it takes any other, and the
// connection's statement names (decision 062) prepare it on the server once, with their recovery
// from a plan a migration made stale. A name given here would bypass both.
// (The ORM's `prepare` types its name as a string; undefined is what it takes for none.)
const NAMED_BY_THE_CONNECTION: string = undefined!;

/**
 * A query the ORM builds once per open database instead of on every call (decision 070): its SQL
 * text, its parameters' places and its result's mapping are kept, and each call only binds `values`
 * to its `sql.placeholder(...)`s. Building a select in the ORM costs 20-110 µs (a join of two whole
 * tables the most), which on a page's hot path is 1-3% of its server CPU each.
 *
 * The query runs on the database itself, never inside a caller's transaction: for the reads of a page.
 */
export function preparedQuery<Values extends Record<string, unknown>, Result>(
  build: (database: Database) => Preparable<Values, Result>,
): (values: Values) => Promise<Result> {
  // Per database: tests and a restart after an outage open a new one.
  const built = new WeakMap<Database, { execute(values?: Values): Promise<Result> }>();
  return (values) => {
    const database = db();
    let query = built.get(database);
    if (!query) {
      query = build(database).prepare(NAMED_BY_THE_CONNECTION);
      built.set(database, query);
    }
    return query.execute(values);
  };
}
