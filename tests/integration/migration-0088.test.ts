import { describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { migrateUpTo } from "../support/migrations";
import { pgliteExtensions } from "~/.server/infrastructure/db/pglite-extensions";

// Migration 0088 (decision 174) gives every message that holds a wamid its key in message_wamids,
// with the message's id and created_at; a message without a wamid (queued, not yet accepted) has none.

describe("migration 0088", () => {
  it("writes a key for each message's wamid, and the triggers keep them from then on", { timeout: 300_000 }, async () => {
    const database = await PGlite.create("memory://", { extensions: await pgliteExtensions() });
    try {
      await migrateUpTo(database, 87);
      const orgs = (
        await database.query<{ id: string }>(
          `insert into organizations (name, business_id) values ('Wamid Ltd', 'WAM-1'), ('Other Ltd', 'WAM-2') returning id`,
        )
      ).rows;
      const [a, b] = [orgs[0]!.id, orgs[1]!.id];
      const old = (
        await database.query<{ id: string; organization_id: string; wamid: string | null; created_at: string }>(
          `insert into messages (organization_id, direction, status, body, wamid, created_at)
           values ($1, 'inbound', 'received', 'Habari', 'wamid.IN1', now() - interval '14 months'),
                  ($1, 'outbound', 'delivered', 'Asante', 'wamid.OUT1', now() - interval '2 days'),
                  ($2, 'inbound', 'received', 'Same wamid, other tenant', 'wamid.IN1', now()),
                  ($1, 'outbound', 'queued', 'Not yet sent', null, now())
           returning id, organization_id, wamid, created_at::text`,
          [a, b],
        )
      ).rows;

      await migrateUpTo(database, 88);

      const keys = (
        await database.query<{ organization_id: string; wamid: string; message_id: string; created_at: string }>(
          `select organization_id, wamid, message_id, created_at::text from message_wamids order by created_at`,
        )
      ).rows;
      expect(keys).toEqual(
        old
          .filter((m) => m.wamid)
          .map((m) => ({ organization_id: m.organization_id, wamid: m.wamid, message_id: m.id, created_at: m.created_at })),
      );
      // From now on the message that takes a wamid writes its key in the same statement.
      await database.query(`update messages set wamid = 'wamid.OUT2', status = 'accepted' where id = $1`, [old[3]!.id]);
      const [taken] = (await database.query<{ message_id: string }>(`select message_id from message_wamids where wamid = 'wamid.OUT2'`))
        .rows;
      expect(taken!.message_id).toBe(old[3]!.id);
    } finally {
      await database.close();
    }
  });
});
