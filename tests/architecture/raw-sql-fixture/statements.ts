// The raw-SQL check's own cases (tests/architecture/raw-sql.test.ts, decision 127): statements on a
// one-table schema, some right and some wrong on purpose. Each wrong one is marked by a comment the
// test finds to know its line. Never run: the check only reads them.
import { sql, type SQL } from "drizzle-orm";

declare function queryRows<Row>(db: unknown, query: SQL): Promise<Row[]>;
declare function countAffected(db: unknown, query: SQL): Promise<number>;

const NEWEST_FIRST = sql`order by created_at desc`;

export function right(db: unknown, organizationId: string, ids: string[]) {
  return queryRows<{ id: string | number; phone: string; created_at: string }>(
    db,
    sql`select id, phone, created_at from contacts where organization_id = ${organizationId} and id in ${ids} ${NEWEST_FIRST}`,
  );
}

export function renamedColumn(db: unknown) {
  return queryRows<{ id: string }>(db, sql`select id from contacts where phone_number is not null`); // renamed column
}

export function missingProperty(db: unknown) {
  return queryRows<{ id: string; total: number }>(db, sql`select id from contacts`); // missing property
}

export function wrongKind(db: unknown) {
  return queryRows<{ phone: number }>(db, sql`select phone from contacts`); // wrong kind
}

export function oneBranchWrong(db: unknown, newest: boolean) {
  return countAffected(db, sql`delete from contacts ${newest ? sql`where created_at > now()` : sql`where created_att < now()`}`); // one branch wrong
}

/** A wrapper: each of its calls is a statement, its row the call's type argument. */
const rows = <Row>(db: unknown, query: SQL) => queryRows<Row>(db, query);

export function throughWrapper(db: unknown) {
  return rows<{ id: string; phone_nr: string }>(db, sql`select id, phone from contacts`); // through a wrapper
}

/** Text for sql.raw made by a function: read with its argument. */
const dayOf = (alias: string, column: "created_at" | "created_att") => `(${alias}.${column} at time zone 'Africa/Nairobi')::date`;

export function rawText(db: unknown) {
  return queryRows<{ day: string }>(db, sql`select ${sql.raw(dayOf("c", "created_att"))} as day from contacts c`); // raw text
}

/** A function with several returns: each SQL it returns is a variant (none, when it returns nothing). */
function scoped(organizationId: string | null): SQL | undefined {
  if (organizationId === null) return undefined;
  return sql`organization_id = ${organizationId}`;
}

/** A list of conditions pushed onto under conditions, then joined: described with every one pushed. */
function conditions(organizationId: string, phone?: string): SQL {
  const parts = [sql`organization_id = ${organizationId}`];
  const inScope = scoped(organizationId);
  if (inScope) parts.push(inScope);
  if (phone) parts.push(sql`phone_nr = ${phone}`);
  return sql.join(parts, sql` and `);
}

export function pushedList(db: unknown, organizationId: string, phone?: string) {
  return queryRows<{ id: string }>(db, sql`select id from contacts where ${conditions(organizationId, phone)}`); // pushed list
}

export function notRebuilt(db: unknown, order: string) {
  return queryRows<{ id: string }>(db, sql`select id from contacts order by ${sql.raw(order)}`); // not rebuilt
}
