import { sql, type SQL } from "drizzle-orm";
import { rawQuery } from "../../infrastructure/db/client";
import { USAGE_ROWS } from "./usage-fold";

/** Options of messagesUsedThisMonthSql: whose messages. */
export interface MonthUsageScope {
  /** The statement's placeholder (or column) for the organisation's id; null for every organisation (the platform's total). */
  organization: string | null;
  /** SQL for a set of phone number ids (a subquery): only the messages sent from them (a WhatsApp account's). */
  phoneNumbers?: string;
  /** SQL for the moment whose month is meant (a timestamptz); now() when absent. */
  at?: string;
}

/**
 * "Messages this month", the one definition every page uses: the messages counted against the plan
 * this Africa/Nairobi month, as the plan's charges counted them (`billing_usage_daily`, kept by
 * every charge and refund, with what waits for the usage fold: decision 173). The tenant's Dashboard and Billing usage bar, the console's Overview,
 * Users and WhatsApp tabs, the session's user and the public API's account all read it, as SQL for a
 * scalar subquery. SMS (category `sms`, issue 77) are not among them: they are priced per part, on
 * their own invoice line (cycle.ts). It reads a row per day, number and category, never the messages themselves, so
 * its cost does not grow with the volume sent.
 */
export function messagesUsedThisMonthSql(scope: string | MonthUsageScope) {
  const { organization, phoneNumbers, at = "now()" } = typeof scope === "string" ? { organization: scope } : scope;
  const month = `date_trunc('month', ${at} at time zone 'Africa/Nairobi')`;
  return `(select coalesce(sum(u.messages), 0)::int from ${USAGE_ROWS} u
            where u.day >= (${month})::date and u.day < (${month} + interval '1 month')::date and u.category <> 'sms'${
              organization === null ? "" : `\n              and u.organization_id = ${organization}`
            }${phoneNumbers ? `\n              and u.phone_number_id in ${phoneNumbers}` : ""})`;
}

/**
 * messagesUsedThisMonthSql for the month of `at`, as a statement part with `at` a parameter: the
 * statement's text stays the same from one request to the next, so it is prepared once (decision 062).
 */
export function messagesUsedThisMonthAt(organization: string, at: Date): SQL {
  const MARK = "\u0000at\u0000";
  const parts = messagesUsedThisMonthSql({ organization, at: MARK }).split(MARK);
  return sql.join(
    parts.map((part) => sql.raw(part)),
    sql`${at.toISOString()}::timestamptz`,
  );
}

/** The messages `organizationId` has used this Africa/Nairobi month (see messagesUsedThisMonthSql). */
export async function messagesUsedThisMonth(organizationId: string): Promise<number> {
  const [row] = await rawQuery<{ used: number }>(`select ${messagesUsedThisMonthSql("$1")} as used`, [organizationId]);
  return Number(row?.used ?? 0);
}
