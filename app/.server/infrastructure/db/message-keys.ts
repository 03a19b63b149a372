import { sql, type SQL } from "drizzle-orm";

/**
 * A message named by its whole key, `(id, created_at)` (decision 183). `messages` is partitioned by
 * month of `created_at` (decision 181): a statement that names a message by `id` alone probes every
 * month's index, and one that also names `created_at` reads one month. The hot paths (the
 * dispatcher, billing, the inbox's change log) carry both from the statement that found the message.
 *
 * `createdAt` is PostgreSQL's own text of the timestamp (`created_at::text`), never a JavaScript
 * Date: a Date keeps milliseconds, the column microseconds, and the key must match exactly.
 */
export interface MessageKey {
  id: string;
  createdAt: string;
}

/**
 * The keys as a table to join, `unnest(ids, created_ats) as k(id, created_at)`: joined on both
 * columns, each key probes only its own month (run-time partition pruning of the nested loop).
 */
export function messageKeyTable(keys: readonly MessageKey[]): SQL {
  return sql`unnest(${sql.param(keys.map((k) => k.id))}::uuid[], ${sql.param(keys.map((k) => k.createdAt))}::timestamptz[]) as k(id, created_at)`;
}

/** The keys with each message once, in their first order. */
export function distinctMessageKeys<K extends MessageKey>(keys: readonly K[]): K[] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.id) && Boolean(seen.add(k.id)));
}
