import { rawQuery } from "../db/client";

/**
 * The messages an organisation has used this Africa/Nairobi month, as SQL for a scalar subquery:
 * what the plan's charges counted (`billing_usage_daily`, kept by every charge and refund), the
 * figure the Billing page's usage bar and the console's "messages used" show. It reads a row per day,
 * number and category, never the messages themselves, so its cost does not grow with the volume
 * sent. `organizationParam` is the statement's placeholder (or column) for the organisation's id.
 */
export function messagesUsedThisMonthSql(organizationParam: string) {
  return `(select coalesce(sum(u.messages), 0)::int from billing_usage_daily u
            where u.organization_id = ${organizationParam}
              and u.day >= (date_trunc('month', now() at time zone 'Africa/Nairobi'))::date)`;
}

/** The messages `organizationId` has used this Africa/Nairobi month (see messagesUsedThisMonthSql). */
export async function messagesUsedThisMonth(organizationId: string): Promise<number> {
  const [row] = await rawQuery<{ used: number }>(`select ${messagesUsedThisMonthSql("$1")} as used`, [organizationId]);
  return Number(row?.used ?? 0);
}
