import { describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { migrateUpTo } from "../support/migrations";
import { pgliteExtensions } from "~/.server/infrastructure/db/pglite-extensions";

// Migration 0085 (decision 164) rebuilds activity_logs, admin_audit_log and webhook_events as tables
// partitioned by month. A database that already has rows in them must come out with every row, its
// id kept, in its month's partition, and each identity going on past the largest id. (Its first
// version copied the rows before the default partition existed, which fails on any table with a row:
// the test database is migrated empty, so only a test like this one sees it.)

describe("migration 0085", () => {
  it("moves each log's rows, ids kept, into their months' partitions", { timeout: 300_000 }, async () => {
    const database = await PGlite.create("memory://", { extensions: await pgliteExtensions() });
    try {
      await migrateUpTo(database, 84);
      const [org] = (
        await database.query<{ id: string }>(`insert into organizations (name, business_id) values ('Logs Ltd', 'LOG-1') returning id`)
      ).rows;
      const month = `to_char(%s at time zone 'UTC', 'YYYY_MM')`;
      const activity = (
        await database.query<{ id: number; month: string }>(
          `insert into activity_logs (organization_id, type, status, action, created_at)
           values ($1, 'settings', 'success', 'Old change', now() - interval '13 months'), ($1, 'settings', 'success', 'New change', now())
           returning id, ${month.replace("%s", "created_at")} as month`,
          [org!.id],
        )
      ).rows;
      const events = (
        await database.query<{ id: number; month: string }>(
          `insert into webhook_events (body, signature, received_at) values ('{"a":1}', 'sig', now() - interval '2 months'), ('{"a":2}', 'sig', now())
           returning id, ${month.replace("%s", "received_at")} as month`,
        )
      ).rows;
      const audit = (
        await database.query<{ id: number; month: string }>(
          `insert into admin_audit_log (admin_id, admin_email, action, target_type, created_at)
           values (gen_random_uuid(), 'admin@jumbe.test', 'plan.change', 'organization', now() - interval '40 days')
           returning id, ${month.replace("%s", "created_at")} as month`,
        )
      ).rows;

      await migrateUpTo(database, 85);

      const where = async (table: string) =>
        (await database.query<{ id: number; part: string }>(`select id, tableoid::regclass::text as part from ${table} order by id`)).rows;
      expect(await where("activity_logs")).toEqual(activity.map((r) => ({ id: r.id, part: `activity_logs_p${r.month}` })));
      expect(await where("webhook_events")).toEqual(events.map((r) => ({ id: r.id, part: `webhook_events_p${r.month}` })));
      expect(await where("admin_audit_log")).toEqual(audit.map((r) => ({ id: r.id, part: `admin_audit_log_p${r.month}` })));
      // The identities go on past the copied ids; the audit log is still append-only.
      const [next] = (
        await database.query<{ id: number }>(
          `insert into activity_logs (organization_id, type, status, action) values ($1, 'settings', 'success', 'After') returning id`,
          [org!.id],
        )
      ).rows;
      expect(next!.id).toBeGreaterThan(Math.max(...activity.map((r) => r.id)));
      await expect(database.query(`delete from admin_audit_log where id = $1`, [audit[0]!.id])).rejects.toThrow(/append-only/);
    } finally {
      await database.close();
    }
  });
});
