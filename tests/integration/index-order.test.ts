import { describe, expect, it } from "vitest";
import { sql, type SQL } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { claimStatement } from "~/.server/infrastructure/jobs/queue";
import { recentActivityStatement } from "~/.server/domains/admin/overview/activity";
import { createVerifiedUser } from "../support/accounts";

// Decision 040: an ORDER BY ... DESC over an index built with drizzle's desc() ("desc nulls last")
// must say "nulls last" too, or the planner sorts every matching row instead of reading the index.
// The plans of the two hottest such statements, over enough rows that a sort would be chosen only
// when the index cannot give the order: a plain "desc" in either makes this fail.

async function plan(statement: SQL) {
  const result = await queryRows<Record<string, string>>(db(), sql`explain ${statement}`);
  return result.map((row) => Object.values(row)[0]).join("\n");
}

describe("descending lists read their indexes (decision 040)", () => {
  it("a worker's claim reads jobs_pending_idx and never sorts the queue's backlog", async () => {
    await db().execute(sql`
      insert into jobs (queue, payload, priority, run_at)
      select 'plan.check', '{}', (g % 3) * 10, now() - interval '1 second' * g from generate_series(1, 5000) g`);
    await db().execute(sql`analyze jobs`);
    const text = await plan(claimStatement("plan.check", 10, 30_000));
    expect(text).toContain("jobs_pending_idx");
    expect(text).not.toMatch(/\bSort\b/);
  });

  it("the console's recent activity across tenants reads each month's activity_logs_created_idx and never sorts the records", async () => {
    const tenant = await createVerifiedUser({ businessName: "Nyeri Dairy Cooperative" });
    await db().execute(sql`
      insert into activity_logs (organization_id, type, status, action, details, created_at)
      select ${tenant.organization.id}, 'auth', 'success', 'Signed in', '', now() - interval '1 minute' * g
      from generate_series(1, 5000) g`);
    await db().execute(sql`analyze activity_logs`);
    const text = await plan(recentActivityStatement(10));
    // Partitioned by month (decision 164): each month's copy of the index, merged in its order (a
    // Merge Append's "Sort Key" is the order it keeps, not a sort).
    expect(text).toMatch(/Index Scan using activity_logs_\w+_created_at_id_idx/);
    expect(text).not.toMatch(/\bSort\s+\(cost=/);
  });
});
