import { eq } from "drizzle-orm";
import { db } from "../db/client";
import { users } from "../db/schema";
import { recordActivity } from "../activity/record";
import type { RequestMeta } from "../http/request-meta";
import { log } from "../log";
import { hitRateLimit, hitRateLimits, RATE_LIMITS, rateLimitMessage } from "../security/rate-limit";
import { verifyAgainstDummy, verifyPassword } from "./password";
import { createSession, deleteSessionByToken } from "./sessions";
import { RESEND_WINDOW, sendVerificationCode } from "./signup";
import { countMessagesThisMonth, findUserByEmail, toAuthUser, type AuthUser } from "./users";

export const SIGNIN_MESSAGES = {
  invalid: "Invalid email or password.",
  suspended: "Your account has been suspended. Please contact support@jumbe.co.ke.",
  unverified: "Please verify your email to continue. We have sent a verification code to your inbox.",
  success: "Login successful!",
  fallback: "An error occurred during login.",
} as const;

export type SigninResult =
  | { ok: true; user: AuthUser; setCookie: string }
  | { ok: false; status: 401 | 403 | 429; message: string; reason: "invalid" | "suspended" | "rate_limited" }
  | { ok: false; status: 403; message: string; reason: "unverified"; email: string };

/**
 * Checks the password and opens a session; unverified accounts get a fresh code instead.
 * The session this browser had before (`previousToken`) ends: a sign-in always gets a new id.
 */
export async function signIn(email: string, password: string, remember: boolean, meta: RequestMeta, previousToken?: string): Promise<SigninResult> {
  const normalized = email.trim().toLowerCase();
  const limited = await hitRateLimits([
    [RATE_LIMITS.signinIp, meta.ip],
    [RATE_LIMITS.signinAccount, normalized],
  ]);
  if (!limited.allowed) return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds), reason: "rate_limited" };

  const account = await findUserByEmail(normalized);
  if (!account) {
    await verifyAgainstDummy(password);
    log().info({ ip: meta.ip }, "sign-in failed: unknown account");
    return { ok: false, status: 401, message: SIGNIN_MESSAGES.invalid, reason: "invalid" };
  }
  const { user, organization } = account;
  if (!(await verifyPassword(user.passwordHash, password))) {
    await recordActivity({ organizationId: organization.id, userId: user.id, type: "login", status: "error", action: "Sign-in failed", details: "Wrong password", meta });
    return { ok: false, status: 401, message: SIGNIN_MESSAGES.invalid, reason: "invalid" };
  }
  if (organization.status === "suspended") {
    await recordActivity({ organizationId: organization.id, userId: user.id, type: "security", status: "warning", action: "Sign-in refused", details: "Account suspended", meta });
    return { ok: false, status: 403, message: SIGNIN_MESSAGES.suspended, reason: "suspended" };
  }
  if (!user.isVerified) {
    const window = await hitRateLimit(RESEND_WINDOW, user.id);
    if (window.allowed) await sendVerificationCode(user.id, user.email);
    return { ok: false, status: 403, message: SIGNIN_MESSAGES.unverified, reason: "unverified", email: user.email };
  }

  if (previousToken) await deleteSessionByToken(previousToken);
  const session = await createSession(user.id, remember, meta);
  const lastLoginAt = new Date();
  await db().update(users).set({ lastLoginAt }).where(eq(users.id, user.id));
  await recordActivity({ organizationId: organization.id, userId: user.id, type: "login", status: "success", action: "Signed in", details: remember ? "Remembered for 30 days" : "Browser session", meta });
  const messagesUsed = await countMessagesThisMonth(organization.id);
  return { ok: true, user: toAuthUser({ ...user, lastLoginAt }, organization, messagesUsed), setCookie: session.setCookie };
}
