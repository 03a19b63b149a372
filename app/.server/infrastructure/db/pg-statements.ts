import type { ClientBase, QueryConfig } from "pg";

/**
 * node-postgres with each statement prepared once per connection (decision 062), as PGlite's client
 * does (decision 041). A statement's text gets a name in this process (see below for when); a
 * connection then parses it once under that name, and every later run is Bind and Execute only:
 * PostgreSQL neither parses nor plans the text again (after five runs it keeps a generic plan where
 * that costs no more), which is most of a short statement's database CPU.
 *
 * Only single statements that read or write rows are named (select, insert, update, delete, with,
 * values); transaction control, `set`, DDL and texts with several statements go as they came. A text
 * is named the second time it is seen: one written with a value inside it (a time, a list of ids)
 * is seen once and never takes a name. The names are bounded too: past `max` of them new texts go
 * unnamed, so neither this process nor a PostgreSQL connection holds an unbounded list.
 */
export function nameStatements(client: ClientBase, names: StatementNames) {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  // Bumped when PostgreSQL refuses a prepared statement whose tables changed shape (a migration by
  // another instance, 0A000): this connection then prepares every text again under fresh names.
  let generation = 0;
  const nameFor = (text: string) => {
    const name = names.nameOf(text);
    return name && generation ? `${name}_${generation}` : name;
  };
  const named = (config: QueryConfig, callback: unknown) => {
    // pool.query's form, one statement on its own: run again once under the fresh name.
    if (typeof callback === "function") {
      return query(config, (error: unknown, result: unknown) => {
        if (!isStale(error)) return callback(error, result);
        generation++;
        query({ ...config, name: nameFor(config.text) }, callback);
      });
    }
    // A promise, as in a transaction: PostgreSQL has already ended the transaction, so the error
    // stands and the caller's next attempt prepares afresh.
    return (query(config) as Promise<unknown>).catch((error: unknown) => {
      if (isStale(error)) generation++;
      throw error;
    });
  };
  // node-postgres's forms: (text[, values][, callback]) and (config[, values][, callback]).
  (client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [first, second, third] = args;
    const values = Array.isArray(second) ? second : undefined;
    const callback = typeof second === "function" ? second : third;
    if (typeof first === "string") {
      const name = nameFor(first);
      if (name) return named({ name, text: first, ...(values ? { values } : {}) }, callback);
    } else if (isPlainConfig(first)) {
      const name = nameFor(first.text);
      if (name) return named({ ...first, name, ...(values ? { values } : {}) }, callback);
    }
    return query(...args);
  };
}

/** "cached plan must not change result type": a prepared statement's tables changed shape. */
function isStale(error: unknown) {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "0A000";
}

function isPlainConfig(value: unknown): value is QueryConfig {
  if (typeof value !== "object" || value === null) return false;
  const config = value as Partial<QueryConfig> & { submit?: unknown };
  return typeof config.text === "string" && config.name === undefined && typeof config.submit !== "function";
}

const NAMEABLE = /^\s*(select|insert|update|delete|with|values)\b/i;

/**
 * Put first in a statement's text to keep it unnamed, so PostgreSQL plans it for its values on every
 * run, never with a generic plan. For a statement whose best plan depends on its values more than the
 * planning costs: the inbox search, whose newest-messages arm reads 20,000 rows of a large organisation
 * by its index, where a generic plan (made for an average one) read and sorted all of them, 5 to 13 s
 * at a million messages against 50 to 560 ms (docs/scaling.md).
 */
export const PLANNED_FOR_ITS_VALUES = "/* planned for its values */ ";
// A semicolon followed by anything but spaces: a second statement (or one in a string literal,
// which is left unnamed too; nothing is lost but the saving).
export const SECOND_STATEMENT = /;\s*\S/;

/** The names this process gave statement texts: one for each text seen twice, at most `max` of them. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  // Texts seen once, forgotten all together when there are `max` of them.
  private readonly seenOnce = new Set<string>();

  constructor(private readonly max = 1000) {}

  nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    if (this.names.size >= this.max || !NAMEABLE.test(text) || SECOND_STATEMENT.test(text)) return undefined;
    if (!this.seenOnce.has(text)) {
      if (this.seenOnce.size >= this.max) this.seenOnce.clear();
      this.seenOnce.add(text);
      return undefined;
    }
    this.seenOnce.delete(text);
    const name = `j${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }

  get size() {
    return this.names.size;
  }
}
