import { sql, type SQL } from "drizzle-orm";

/**
 * The organisations the console counts as tenants: every one but the platform's own (an
 * administrator's organisation is where their account lives, not a customer).
 */
export function isTenant(alias = "o", column = "id"): SQL {
  // One hashed set of the few platform organisations, read once per statement (never a lookup per row).
  return sql.raw(`${alias}.${column} not in (select pa.organization_id from users pa where pa.usertype = 'admin')`);
}

/** The first day of the current Africa/Nairobi month, as a date (YYYY-MM-DD). */
export const nairobiMonthStart = sql`(date_trunc('month', now() at time zone 'Africa/Nairobi'))::date`;

/** Today's Africa/Nairobi date. */
export const nairobiToday = sql`(now() at time zone 'Africa/Nairobi')::date`;

/** The instant the current Africa/Nairobi month began. */
export const nairobiMonthStartInstant = sql`(date_trunc('month', now() at time zone 'Africa/Nairobi') at time zone 'Africa/Nairobi')`;
