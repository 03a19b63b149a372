/**
 * Raw SQL on the database or a caller's transaction, one statement each. The drivers answer in
 * different shapes (node-postgres: `rows` and `rowCount`; PGlite: `rows` and `affectedRows`), which
 * the ORM's `execute` types as unknown; these read them in one place.
 */
import type { SQL } from "drizzle-orm";
import type { Executor } from "./client";

/** The statement's rows, typed as the caller's SQL selects them. */
export async function queryRows<Row>(executor: Executor, query: SQL): Promise<Row[]> {
  const result = await executor.execute(query);
  // The row type is the caller's word for its own select list: the driver knows only column names.
  return driverRows(result) as Row[];
}

/** The statement's first row, or undefined when it answers none. */
export async function queryRow<Row>(executor: Executor, query: SQL): Promise<Row | undefined> {
  const rows = await queryRows<Row>(executor, query);
  return rows[0];
}

/** How many rows a write changed (inserted, updated or deleted). */
export async function countAffected(executor: Executor, query: SQL): Promise<number> {
  const result = await executor.execute(query);
  return affectedCountOf(result);
}

function driverRows(result: unknown): unknown[] {
  if (typeof result === "object" && result !== null && "rows" in result && Array.isArray(result.rows)) return result.rows;
  throw new Error("The database answered a statement without rows.");
}

function affectedCountOf(result: unknown): number {
  if (typeof result !== "object" || result === null) return 0;
  const rowCount = "rowCount" in result ? result.rowCount : undefined;
  const affectedRows = "affectedRows" in result ? result.affectedRows : undefined;
  const counted = rowCount ?? affectedRows;
  return typeof counted === "number" ? counted : 0;
}
