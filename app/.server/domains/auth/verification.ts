import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { organizations, users } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { hitRateLimit, hitRateLimits, RATE_LIMITS, rateLimitMessage } from "../../infrastructure/security/rate-limit";
import { codeMessage, consumeCode } from "./codes";
import { RESEND_WINDOW, sendVerificationCode } from "./signup";
import { findUserByEmail } from "./users";
import { m } from "~/paraglide/messages";
import { baseLocale } from "~/paraglide/runtime";

export type VerifyResult = { ok: true; message: string } | { ok: false; status: 400 | 429; message: string };

/** Checks the sign-up code; a verified user becomes able to sign in and a pending organisation active. */
export async function verifySignupCode(email: string, otp: string, meta: RequestMeta): Promise<VerifyResult> {
  const normalized = email.trim().toLowerCase();
  const limited = await hitRateLimits([
    [RATE_LIMITS.codeIp, meta.ip],
    [RATE_LIMITS.codeAccount, normalized],
  ]);
  if (!limited.allowed) return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds) };

  const account = await findUserByEmail(normalized);
  if (!account || account.user.isVerified) return { ok: false, status: 400, message: codeMessage("invalid") };
  const check = await consumeCode(account.user.id, "signup", otp);
  if (!check.ok) {
    await recordActivity({
      organizationId: account.organization.id,
      userId: account.user.id,
      type: "auth",
      status: "warning",
      action: "Email verification failed",
      // The activity log keeps Jumbe's words in English.
      details: codeMessage(check.reason, baseLocale),
      meta,
    });
    return { ok: false, status: 400, message: codeMessage(check.reason) };
  }
  await db().transaction(async (tx) => {
    await tx.update(users).set({ isVerified: true }).where(eq(users.id, account.user.id));
    if (account.organization.status === "pending")
      await tx.update(organizations).set({ status: "active", updatedAt: new Date() }).where(eq(organizations.id, account.organization.id));
  });
  await recordActivity({
    organizationId: account.organization.id,
    userId: account.user.id,
    type: "auth",
    status: "success",
    action: "Email verified",
    details: account.user.email,
    meta,
  });
  return { ok: true, message: m.validation_auth_email_verified() };
}

export type ResendResult = { ok: true; message: string } | { ok: false; status: 429; message: string; retryAfterSeconds: number };

/**
 * Sends a new sign-up code at most every 30 s. Unknown and already verified addresses get the same
 * answer and the same window, so the response reveals nothing about accounts.
 */
export async function resendSignupCode(email: string, meta: RequestMeta): Promise<ResendResult> {
  const normalized = email.trim().toLowerCase();
  const limited = await hitRateLimits([
    [RATE_LIMITS.codeIp, meta.ip],
    [RATE_LIMITS.codeAccount, normalized],
  ]);
  if (!limited.allowed)
    return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds), retryAfterSeconds: limited.retryAfterSeconds };

  const account = await findUserByEmail(normalized);
  const subject = account?.user.id ?? `unknown:${normalized}`;
  const window = await hitRateLimit(RESEND_WINDOW, subject);
  if (!window.allowed) {
    return {
      ok: false,
      status: 429,
      message: m.validation_auth_code_wait({ seconds: window.retryAfterSeconds }),
      retryAfterSeconds: window.retryAfterSeconds,
    };
  }
  if (account && !account.user.isVerified) {
    await sendVerificationCode(account.user.id, account.user.email);
  }
  return { ok: true, message: m.validation_auth_otp_resent() };
}
