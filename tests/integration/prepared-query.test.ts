import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs } from "~/.server/infrastructure/db/schema";
import { preparedQuery } from "~/.server/infrastructure/db/prepared";
import { countStatements } from "~/.server/infrastructure/db/statement-count";
import { listRecentActivity } from "~/.server/domains/activity/queries";
import { listConnections } from "~/.server/domains/whatsapp/connections";
import { createVerifiedUser } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Decision 070: queries the ORM builds once per database, each call binding only its values.

async function activity(organizationId: string, userId: string, action: string) {
  await db().insert(activityLogs).values({ organizationId, userId, type: "auth", status: "success", action });
}

describe("a prepared query", () => {
  it("is built once and answers each call for its own values: one tenant never reads another's rows", async () => {
    let builds = 0;
    const actionsOf = preparedQuery((database) => {
      builds++;
      return database
        .select({ action: activityLogs.action })
        .from(activityLogs)
        .where(eq(activityLogs.organizationId, sql.placeholder("organizationId")))
        .orderBy(activityLogs.action);
    });
    const amina = await createVerifiedUser({ businessName: "Duka la Amina" });
    const brian = await createVerifiedUser({ businessName: "Brian Motors" });
    await activity(amina.organization.id, amina.user.id, "Amina's first");
    await activity(brian.organization.id, brian.user.id, "Brian's first");

    const { result, statements } = await countStatements(async () => ({
      amina: await actionsOf({ organizationId: amina.organization.id }),
      brian: await actionsOf({ organizationId: brian.organization.id }),
    }));
    expect(result.amina.map((row) => row.action)).toContain("Amina's first");
    expect(result.amina.map((row) => row.action)).not.toContain("Brian's first");
    expect(result.brian.map((row) => row.action)).toContain("Brian's first");
    expect(result.brian.map((row) => row.action)).not.toContain("Amina's first");
    expect(builds).toBe(1);
    // Still counted for the request's Server-Timing, one statement a call.
    expect(statements).toBe(2);
  });

  it("reads the recent activity of a tenant or of one member, newest first, as many as asked", async () => {
    const owner = await createVerifiedUser({ businessName: "Mama Mboga Ltd" });
    const other = await createVerifiedUser({ businessName: "Jirani Traders" });
    for (const action of ["one", "two", "three"]) await activity(owner.organization.id, owner.user.id, action);
    await activity(other.organization.id, other.user.id, "not theirs");
    const tenant = await listRecentActivity(owner.organization.id, { limit: 2 });
    expect(tenant).toHaveLength(2);
    expect(tenant.every((row) => row.action !== "not theirs")).toBe(true);
    const mine = await listRecentActivity(owner.organization.id, { userId: owner.user.id, limit: 10 });
    expect(mine.map((row) => row.action)).toEqual(expect.arrayContaining(["one", "two", "three"]));
    expect(await listRecentActivity(owner.organization.id, { userId: other.user.id })).toEqual([]);
  });

  it("lists a tenant's own WhatsApp accounts with their numbers, never another's", async () => {
    const connected = await createVerifiedUser({ businessName: "Kilimo Bora" });
    const empty = await createVerifiedUser({ businessName: "Pwani Fresh" });
    const { phone } = await connectedNumber(connected.organization.id, {
      wabaId: "770001",
      phoneNumberId: "870001",
      display: "+254 700 700 100",
    });
    const accounts = await listConnections(connected.organization.id);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.wabaId).toBe("770001");
    expect(accounts[0]!.numbers.map((n) => n.phoneNumberId)).toEqual([phone.phoneNumberId]);
    expect(await listConnections(empty.organization.id)).toEqual([]);
  });
});
