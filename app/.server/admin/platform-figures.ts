import { sql } from "drizzle-orm";
import { queryRows } from "../db/client";
import type { PlatformScope } from "../auth/scope";
import { TIME_ZONE } from "~/lib/dates";

/**
 * Platform-wide counts for the admin overview, straight from the database, in one statement;
 * reading every tenant needs the platform scope.
 */
export async function platformFigures(_scope: PlatformScope) {
  const [row] = await queryRows<{
    active: number;
    pending: number;
    suspended: number;
    business_users: number;
    signups_week: number;
    messages_month: number;
  }>(sql`
    select
      (select count(*) from organizations where status = 'active')::int as active,
      (select count(*) from organizations where status = 'pending')::int as pending,
      (select count(*) from organizations where status = 'suspended')::int as suspended,
      (select count(*) from users where usertype = 'individual')::int as business_users,
      -- A sign-up makes an organisation; members who join by invitation are not sign-ups.
      (select count(*) from organizations o where o.created_at >= now() - interval '7 days'
         and not exists (select 1 from users u where u.organization_id = o.id and u.usertype = 'admin'))::int as signups_week,
      (select count(*) from messages where direction = 'outbound'
         and created_at >= date_trunc('month', now() at time zone ${TIME_ZONE}) at time zone ${TIME_ZONE})::int as messages_month`);
  return {
    organizations: { active: Number(row?.active ?? 0), pending: Number(row?.pending ?? 0), suspended: Number(row?.suspended ?? 0) },
    businessUsers: Number(row?.business_users ?? 0),
    signupsThisWeek: Number(row?.signups_week ?? 0),
    messagesThisMonth: Number(row?.messages_month ?? 0),
  };
}
