import { and, count, eq, gte, sql } from "drizzle-orm";
import { db } from "../db/client";
import { messages, organizations, users } from "../db/schema";
import type { PlatformScope } from "../auth/scope";
import { TIME_ZONE } from "~/lib/dates";

/** Platform-wide counts for the admin overview, straight from the database; reading every tenant needs the platform scope. */
export async function platformFigures(_scope: PlatformScope) {
  const [byStatus, userCount, monthMessages, newThisWeek] = await Promise.all([
    db().select({ status: organizations.status, value: count() }).from(organizations).groupBy(organizations.status),
    db().select({ value: count() }).from(users).where(eq(users.usertype, "individual")),
    db()
      .select({ value: count() })
      .from(messages)
      .where(and(eq(messages.direction, "outbound"), gte(messages.createdAt, sql`date_trunc('month', now() at time zone ${TIME_ZONE}) at time zone ${TIME_ZONE}`))),
    db().select({ value: count() }).from(users).where(and(eq(users.usertype, "individual"), gte(users.createdAt, sql`now() - interval '7 days'`))),
  ]);
  const status = Object.fromEntries(byStatus.map((row) => [row.status, row.value])) as Record<string, number>;
  return {
    organizations: { active: status.active ?? 0, pending: status.pending ?? 0, suspended: status.suspended ?? 0 },
    businessUsers: userCount[0]?.value ?? 0,
    signupsThisWeek: newThisWeek[0]?.value ?? 0,
    messagesThisMonth: monthMessages[0]?.value ?? 0,
  };
}
