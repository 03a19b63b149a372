import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { users } from "../../infrastructure/db/schema";
import { hitRateLimit, RATE_LIMITS, rateLimitMessage, refundRateLimit } from "../../infrastructure/security/rate-limit";
import { verifyPassword } from "./password";

export type PasswordCheck = { ok: true } | { ok: false; status: 400 | 429; message: string };

/**
 * A signed-in member confirms a sensitive change with their password (two-factor, handing over the
 * ownership, closing the organisation). Wrong passwords count in the member's own bucket, the one the
 * change-password form uses (decision 013); a right one gives its slot back.
 */
export async function confirmOwnPassword(userId: string, password: string, wrongMessage: string): Promise<PasswordCheck> {
  const limited = await hitRateLimit(RATE_LIMITS.passwordChange, userId);
  if (!limited.allowed) return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds) };
  const [row] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  if (!row || !(await verifyPassword(row.hash, password))) return { ok: false, status: 400, message: wrongMessage };
  await refundRateLimit(RATE_LIMITS.passwordChange, userId, limited);
  return { ok: true };
}
