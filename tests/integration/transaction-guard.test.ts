import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { StatementOutsideTransaction } from "~/.server/infrastructure/db/transaction-guard";

// Decision 043: a statement sent on the database (not on the transaction) from inside a
// transaction's own callback is refused at once, on PGlite (where it would wait for ever, freezing
// every tenant) and on PostgreSQL in development and tests (where it takes a second connection).

const one = async () => (await rawQuery<{ one: number }>(`select 1 as one`))[0]!.one;

describe(`statements around an open transaction (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("refuses rawQuery, db() and a second transaction from inside a transaction, and the transaction rolls back", async () => {
    await rawQuery(`create table if not exists guard_probe (n int)`);
    for (const mistake of [
      () => rawQuery(`select 1`),
      () => db().execute(sql`select 1`),
      () => db().transaction(async (inner) => inner.execute(sql`select 1`)),
    ]) {
      const attempt = db().transaction(async (tx) => {
        await tx.execute(sql`insert into guard_probe values (1)`);
        await mistake();
      });
      const error = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
      // Drizzle wraps a failed statement's error in its own, with the driver's as the cause.
      expect(error instanceof StatementOutsideTransaction || (error as Error).cause instanceof StatementOutsideTransaction).toBe(true);
    }
    expect((await rawQuery<{ n: number }>(`select count(*)::int as n from guard_probe`))[0]!.n).toBe(0);
    // The database answers at once afterwards: nothing was left waiting.
    expect(await one()).toBe(1);
  });

  it("lets other work wait its turn, and statements through the transaction and nested savepoints run", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db().transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await tx.transaction(async (savepoint) => savepoint.execute(sql`select 2`));
      await held;
      return "committed";
    });
    // Started outside the transaction's callback: not refused (on PGlite it waits for the commit).
    const outside = one();
    release();
    expect(await transaction).toBe("committed");
    expect(await outside).toBe(1);
  });

  it("lets a promise the callback left running send once the transaction has ended", async () => {
    let later!: Promise<number>;
    await db().transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(one);
    });
    expect(await later).toBe(1);
  });
});
