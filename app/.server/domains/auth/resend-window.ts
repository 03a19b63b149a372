import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { RESEND_WINDOW } from "./signup";
import { findUserByEmail } from "./users";

/** Seconds until a new sign-up code may be sent to this address (0 when it may be sent now). */
export async function secondsUntilResend(email: string) {
  const account = await findUserByEmail(email);
  if (!account) return 0;
  const rows = await queryRows<{ remaining: number | string | null }>(
    db(),
    sql`
    select ceil(extract(epoch from (window_start + ${`${RESEND_WINDOW.windowSeconds} seconds`}::interval - now()))) as remaining
    from rate_limits where key = ${`${RESEND_WINDOW.name}:${account.user.id}`}`,
  );
  const remaining = Number(rows[0]?.remaining ?? 0);
  return Math.max(0, Math.min(RESEND_WINDOW.windowSeconds, remaining));
}
