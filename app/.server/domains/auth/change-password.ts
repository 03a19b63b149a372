import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { users } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { queueMail } from "../../infrastructure/mail/queue";
import { passwordChangedMail } from "../../infrastructure/mail/messages";
import { hitRateLimit, RATE_LIMITS, rateLimitMessage, refundRateLimit } from "../../infrastructure/security/rate-limit";
import type { CurrentUser } from "./guards";
import { knownDeviceCookieHeader } from "./known-device";
import { hashPassword, verifyPassword } from "./password";
import { deleteUserSessions } from "./sessions";
import { m } from "~/paraglide/messages";

/** The stored hash, read only where a password is checked (sessions never load it). */
async function passwordHashOf(userId: string) {
  const [row] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  return row?.hash ?? "";
}

/**
 * Changes the password after checking the current one; every other session of the user ends.
 * Wrong current passwords count in a bucket of the user's own (decision 013): a right one gives
 * its slot back, and strangers' failed sign-ins never block a signed-in user here.
 * The new password forgets every known device; `deviceCookie` keeps this browser one.
 */
export async function changePassword(
  current: CurrentUser,
  currentPassword: string,
  newPassword: string,
  sessionToken: string | undefined,
  meta: RequestMeta,
) {
  const limited = await hitRateLimit(RATE_LIMITS.passwordChange, current.user.id);
  if (!limited.allowed)
    return { ok: false as const, status: 429 as const, field: undefined, message: rateLimitMessage(limited.retryAfterSeconds) };
  if (!(await verifyPassword(await passwordHashOf(current.user.id), currentPassword))) {
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "security",
      status: "error",
      action: "Password change failed",
      details: "Wrong current password",
      meta,
    });
    return {
      ok: false as const,
      status: 400 as const,
      field: "currentPassword" as const,
      message: m.validation_auth_current_password_wrong(),
    };
  }
  await refundRateLimit(RATE_LIMITS.passwordChange, current.user.id, limited);
  const passwordChangedAt = new Date();
  await db()
    .update(users)
    .set({ passwordHash: await hashPassword(newPassword), passwordChangedAt })
    .where(eq(users.id, current.user.id));
  await deleteUserSessions(current.user.id, sessionToken);
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "security",
    status: "success",
    action: "Password changed",
    details: "Other sessions signed out",
    meta,
  });
  // From a job: the password is changed, and a mail server that is down must not answer otherwise.
  await queueMail(passwordChangedMail(current.user.email));
  return {
    ok: true as const,
    message: m.validation_auth_password_changed(),
    deviceCookie: knownDeviceCookieHeader({ id: current.user.id, passwordChangedAt }),
  };
}
