import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Catches a statement sent around an open transaction instead of through it (decision 043).
 *
 * PGlite is one connection: while a transaction holds it, any other statement waits for the
 * transaction to end. A statement sent from inside the transaction's own callback on `db()` or
 * `rawQuery` (not on `tx`) therefore waits for ever, and with it every request of every tenant:
 * the whole embedded database freezes. On PostgreSQL the same mistake takes a second pooled
 * connection while holding the first; enough of them at once exhaust the pool.
 *
 * The transaction's callback runs inside an async context that says "a transaction is open here"
 * until the callback settles. The driver asks before each statement that does not go through a
 * transaction: from such a context the statement is refused with an error naming the mistake,
 * at once, instead of waiting. Work started elsewhere (another request, the job worker) has no
 * such context and waits its turn as before. Promises the callback left running that send after
 * the transaction ended see it closed, and go ahead.
 */

interface OpenTransaction {
  open: boolean;
}

const current = new AsyncLocalStorage<OpenTransaction>();

export class StatementOutsideTransaction extends Error {
  constructor(what: string) {
    super(
      `${what} was sent on the database while this code's own transaction is open. Send it through the transaction ` +
        "(the `tx` the callback was given): on PGlite it would wait for that transaction to end, which never comes.",
    );
    this.name = "StatementOutsideTransaction";
  }
}

/** Runs a transaction's callback in a context that marks the transaction open until the callback settles. */
export function insideTransaction<T>(callback: () => Promise<T>): Promise<T> {
  const scope: OpenTransaction = { open: true };
  return current.run(scope, async () => {
    try {
      return await callback();
    } finally {
      scope.open = false;
    }
  });
}

/** Whether the calling code runs inside a transaction's callback that has not settled yet. */
export function inOpenTransaction() {
  return current.getStore()?.open === true;
}

/** Refuses a statement (or a new transaction) sent around the caller's own open transaction. */
export function assertNoOpenTransaction(what: string) {
  if (inOpenTransaction()) throw new StatementOutsideTransaction(what);
}

/** Wraps a Drizzle database's `transaction` so its callback runs in insideTransaction. */
export function guardTransactions<D extends { transaction: (...args: never[]) => Promise<unknown> }>(database: D): D {
  const original = database.transaction.bind(database) as (
    callback: (tx: unknown) => Promise<unknown>,
    config?: unknown,
  ) => Promise<unknown>;
  const guarded = (callback: (tx: unknown) => Promise<unknown>, config?: unknown) => {
    assertNoOpenTransaction("A new transaction");
    return original((tx) => insideTransaction(() => callback(tx)), config);
  };
  Reflect.set(database, "transaction", guarded);
  return database;
}
