import pg from "pg";
import { expect, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { conversationLockKey } from "~/.server/domains/messaging";
import { testDatabaseUrl } from "./database";

/**
 * A person's transaction holding the conversation (the lock taken, the hold written, not yet
 * committed) while `work` runs; commits once `work` waits on the conversation's lock. PostgreSQL only:
 * PGlite has one connection, so no other transaction can hold a lock.
 */
export async function personTakesOverDuring<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
  const person = new pg.Client({ connectionString: testDatabaseUrl() });
  await person.connect();
  try {
    await person.query("begin");
    await person.query("select pg_advisory_xact_lock(hashtext($1))", [conversationLockKey(conversationId)]);
    await person.query("update conversations set person_held_at = now() where id = $1", [conversationId]);
    const running = work();
    await vi.waitFor(
      async () => {
        const [waiting] = await rawQuery<{ n: number }>(
          `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
        );
        expect(waiting!.n).toBe(1);
      },
      { timeout: 30_000, interval: 20 },
    );
    await person.query("commit");
    return await running;
  } finally {
    await person.end();
  }
}
