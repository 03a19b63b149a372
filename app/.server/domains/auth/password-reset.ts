import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { users } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { wakeWorkers } from "../../infrastructure/jobs/worker";
import { queueMail } from "../../infrastructure/mail/queue";
import { passwordChangedMail } from "../../infrastructure/mail/messages";
import { hitRateLimits, RATE_LIMITS, rateLimitMessage } from "../../infrastructure/security/rate-limit";
import { forgetSignInFailures } from "./signin-attempts";
import { codeMessage, consumeCode } from "./codes";
import { hashPassword } from "./password";
import { deleteUserSessions } from "./sessions";
import { RESET_MAIL_QUEUE, type ResetMailPayload } from "./reset-mail-job";
import { findUserByEmail } from "./users";
import { m } from "~/paraglide/messages";

/**
 * Queues the reset mail (reset-mail-job.ts) after the limits; the answer is the same either way.
 * Nothing here depends on whether the account exists, so neither the answer nor its timing does.
 */
export async function requestPasswordReset(email: string, meta: RequestMeta) {
  const normalized = email.trim().toLowerCase();
  const limited = await hitRateLimits([
    [RATE_LIMITS.resetIp, meta.ip],
    [RATE_LIMITS.resetAccount, normalized],
  ]);
  if (!limited.allowed) return { ok: false as const, status: 429 as const, message: rateLimitMessage(limited.retryAfterSeconds) };
  // Someone is waiting for this mail: ahead of background work on its queue.
  await enqueueJob(RESET_MAIL_QUEUE, { email: normalized, meta } satisfies ResetMailPayload, { priority: 10 });
  wakeWorkers();
  return { ok: true as const, message: m.validation_auth_reset_requested() };
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
  if (!account) return { ok: false as const, status: 400 as const, message: codeMessage("invalid") };
  const check = await consumeCode(account.user.id, "reset", otp);
  if (!check.ok) return { ok: false as const, status: 400 as const, message: codeMessage(check.reason) };

  // Receiving the code proves the mailbox, so an unverified account becomes verified too.
  await db()
    .update(users)
    .set({ passwordHash: await hashPassword(newPassword), passwordChangedAt: new Date(), isVerified: true })
    .where(eq(users.id, account.user.id));
  await deleteUserSessions(account.user.id);
  // The code proved the mailbox: strangers' failed guesses no longer ask the owner for a sign-in code.
  await forgetSignInFailures(normalized, account.user.id, meta.ip);
  await recordActivity({
    organizationId: account.organization.id,
    userId: account.user.id,
    type: "security",
    status: "success",
    action: "Password reset",
    details: "All sessions signed out",
    meta,
  });
  // From a job: the password is changed, and a mail server that is down must not answer otherwise.
  await queueMail(passwordChangedMail(account.user.email));
  return { ok: true as const, message: m.validation_auth_reset_done() };
}
