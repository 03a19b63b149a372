import { eq } from "drizzle-orm";
import { db } from "../db/client";
import { users } from "../db/schema";
import { recordActivity } from "../activity/record";
import type { RequestMeta } from "../http/request-meta";
import { env } from "../config/env";
import { log } from "../log";
import { sendMail } from "../mail/transport";
import { passwordChangedMail, passwordResetMail } from "../mail/messages";
import { hitRateLimit, hitRateLimits, RATE_LIMITS, rateLimitMessage, resetRateLimit } from "../security/rate-limit";
import { CODE_MESSAGES, consumeCode, issueCode } from "./codes";
import { hashPassword } from "./password";
import { deleteUserSessions } from "./sessions";
import { RESEND_WINDOW } from "./signup";
import { findUserByEmail } from "./users";

export const RESET_REQUESTED = "If an account exists for that email, we have sent a 6-digit reset code to it.";
export const RESET_DONE = "Your password has been reset. Please sign in with your new password.";

/** E-mails a reset code when the account exists; the answer is the same either way. */
export async function requestPasswordReset(email: string, meta: RequestMeta) {
  const normalized = email.trim().toLowerCase();
  const limited = await hitRateLimits([
    [RATE_LIMITS.resetIp, meta.ip],
    [RATE_LIMITS.resetAccount, normalized],
  ]);
  if (!limited.allowed) return { ok: false as const, status: 429 as const, message: rateLimitMessage(limited.retryAfterSeconds) };

  const account = await findUserByEmail(normalized);
  if (account && account.organization.status !== "suspended") {
    const window = await hitRateLimit({ ...RESEND_WINDOW, name: "code:reset-resend" }, account.user.id);
    if (window.allowed) {
      const code = await issueCode(account.user.id, "reset", account.user.email);
      if (env().sandbox) log().warn(`[sandbox] password reset code for ${account.user.email}: ${code}`);
      await sendMail(passwordResetMail(account.user.email, code));
      await recordActivity({ organizationId: account.organization.id, userId: account.user.id, type: "security", status: "warning", action: "Password reset requested", details: "Reset code e-mailed", meta });
    }
  }
  return { ok: true as const, message: RESET_REQUESTED };
}

/** Sets a new password with a valid reset code and ends every session of that user. */
export async function resetPassword(email: string, otp: string, newPassword: string, meta: RequestMeta) {
  const normalized = email.trim().toLowerCase();
  const limited = await hitRateLimits([
    [RATE_LIMITS.codeIp, meta.ip],
    [RATE_LIMITS.codeAccount, `reset:${normalized}`],
  ]);
  if (!limited.allowed) return { ok: false as const, status: 429 as const, message: rateLimitMessage(limited.retryAfterSeconds) };

  const account = await findUserByEmail(normalized);
  if (!account) return { ok: false as const, status: 400 as const, message: CODE_MESSAGES.invalid };
  const check = await consumeCode(account.user.id, "reset", otp);
  if (!check.ok) return { ok: false as const, status: 400 as const, message: CODE_MESSAGES[check.reason] };

  // Receiving the code proves the mailbox, so an unverified account becomes verified too.
  await db()
    .update(users)
    .set({ passwordHash: await hashPassword(newPassword), passwordChangedAt: new Date(), isVerified: true })
    .where(eq(users.id, account.user.id));
  await deleteUserSessions(account.user.id);
  // The code proved the mailbox: strangers' failed guesses no longer keep the owner out.
  await resetRateLimit(RATE_LIMITS.signinAccount, normalized);
  await recordActivity({ organizationId: account.organization.id, userId: account.user.id, type: "security", status: "success", action: "Password reset", details: "All sessions signed out", meta });
  await sendMail(passwordChangedMail(account.user.email));
  return { ok: true as const, message: RESET_DONE };
}
