import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { users } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { log } from "../../infrastructure/log";
import { hitRateLimit, rateLimitMessage } from "../../infrastructure/security/rate-limit";
import { knownDeviceCookieHeader, knownDeviceId } from "./known-device";
import { accountUnderAttack, countPasswordFailure, takePasswordAttempt } from "./signin-attempts";
import { EMAIL_CODE_MESSAGES, startEmailCodeStep } from "./email-code/pending";
import { verifyAgainstDummy, verifyPassword } from "./password";
import { createSession, deleteSessionByToken } from "./sessions";
import { RESEND_WINDOW, sendVerificationCode } from "./signup";
import { findUserByEmail, toAuthUser, type AuthUser } from "./users";
import { messagesUsedThisMonth } from "../billing";
import { roleOf, type Role } from "./permissions";
import { openChallenge } from "./two-factor/challenge";
import { notifyNewDeviceSignIn } from "../notifications";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import type { Organization, User } from "../../infrastructure/db/schema";
import { m } from "~/paraglide/messages";

/** What sign-in says: getters, each read in the language of the request that says it. */
export const SIGNIN_MESSAGES = {
  get invalid() {
    return m.validation_auth_signin_invalid();
  },
  get suspended() {
    return m.validation_auth_signin_suspended();
  },
  get unverified() {
    return m.validation_auth_signin_unverified();
  },
  get success() {
    return m.validation_auth_signin_success();
  },
  get fallback() {
    return m.validation_auth_signin_fallback();
  },
};

export type SignedIn = { ok: true; user: AuthUser; role: Role; setCookie: string; deviceCookie: string };

export type SigninResult =
  | SignedIn
  | { ok: false; status: 202; message: string; reason: "two_factor"; challengeCookie: string }
  | { ok: false; status: 202; message: string; reason: "email_code"; codeCookie: string }
  | { ok: false; status: 401 | 403 | 429; message: string; reason: "invalid" | "suspended" | "rate_limited" }
  | { ok: false; status: 403; message: string; reason: "unverified"; email: string };

/**
 * Checks the password and opens a session; unverified accounts get a fresh code instead.
 * The session this browser had before (`previousToken`) ends: a sign-in always gets a new id.
 *
 * Limits count failures only (decision 013) and refuse per client address, per account and address,
 * or per known device, never per account alone (decision 044): a stranger's failures slow the
 * stranger, not the owner elsewhere. Each attempt takes its slots before the costly password check
 * and a right password gives them back, so concurrent guesses cannot overrun a limit and the owner's
 * own sign-ins never use it up. While the account sees more failures than one address may make, a
 * browser it does not know also needs a code e-mailed to the account.
 */
export async function signIn(
  email: string,
  password: string,
  remember: boolean,
  meta: RequestMeta,
  previousToken?: string,
  deviceCookie?: string,
): Promise<SigninResult> {
  const normalized = email.trim().toLowerCase();
  const account = await findUserByEmail(normalized);
  const device = account ? knownDeviceId(deviceCookie, account.user) : null;
  const attempt = await takePasswordAttempt(normalized, meta.ip, device);
  if (!attempt.allowed) return refusedForNow(attempt.retryAfterSeconds);

  if (!account) {
    await verifyAgainstDummy(password);
    await countPasswordFailure(normalized);
    log().info({ ip: meta.ip }, "sign-in failed: unknown account");
    return { ok: false, status: 401, message: SIGNIN_MESSAGES.invalid, reason: "invalid" };
  }
  const { user, organization } = account;
  if (!(await verifyPassword(user.passwordHash, password))) {
    if (!device) await countPasswordFailure(normalized);
    await recordActivity({
      organizationId: organization.id,
      userId: user.id,
      type: "login",
      status: "error",
      action: "Sign-in failed",
      details: "Wrong password",
      meta,
    });
    return { ok: false, status: 401, message: SIGNIN_MESSAGES.invalid, reason: "invalid" };
  }
  // The right password: this attempt was no failure.
  await attempt.refund();
  // An organisation the platform suspended, or a console staff member their owner suspended (issue 74).
  if (organization.status === "suspended" || user.staffSuspendedAt) {
    await recordActivity({
      organizationId: organization.id,
      userId: user.id,
      type: "security",
      status: "warning",
      action: "Sign-in refused",
      details: "Account suspended",
      meta,
    });
    return { ok: false, status: 403, message: SIGNIN_MESSAGES.suspended, reason: "suspended" };
  }
  if (!user.isVerified) {
    const window = await hitRateLimit(RESEND_WINDOW, user.id);
    if (window.allowed) await sendVerificationCode(user.id, user.email);
    return { ok: false, status: 403, message: SIGNIN_MESSAGES.unverified, reason: "unverified", email: user.email };
  }

  // Many failures from several places: a new browser proves the mailbox too (then two-factor, if on).
  if (!device && (await accountUnderAttack(normalized, user.id))) {
    const step = await startEmailCodeStep(user, organization, remember, meta);
    if (!step.ok) return { ok: false, status: 429, message: step.message, reason: "rate_limited" };
    return { ok: false, status: 202, message: EMAIL_CODE_MESSAGES.askCode, reason: "email_code", codeCookie: step.cookie };
  }
  // Two-factor sign-in: the password was right, and a code is asked before any session opens.
  if (user.twoFactorEnabledAt)
    return {
      ok: false,
      status: 202,
      message: TWO_FACTOR_MESSAGES.askCode,
      reason: "two_factor",
      challengeCookie: await openChallenge(user.id, remember),
    };
  return openSignedInSession(user, organization, remember, meta, previousToken, {
    details: remember ? "Remembered for 30 days" : "Browser session",
    knownDevice: device !== null,
  });
}

function refusedForNow(retryAfterSeconds: number) {
  return { ok: false as const, status: 429 as const, message: rateLimitMessage(retryAfterSeconds), reason: "rate_limited" as const };
}

/**
 * The answer's headers for a sign-in that succeeded, whichever way it ended (password, second factor,
 * e-mailed code; page or JSON API): the new session's cookie and the known-device cookie. `init`: the
 * answer's other headers; the caller appends its own cookies (a toast, a cleared challenge) after.
 */
export function signedInHeaders(outcome: Pick<SignedIn, "setCookie" | "deviceCookie">, init?: HeadersInit) {
  const headers = new Headers(init);
  headers.append("Set-Cookie", outcome.setCookie);
  headers.append("Set-Cookie", outcome.deviceCookie);
  return headers;
}

/**
 * The last step of every sign-in (after the password, or after the password and a second factor):
 * a new session (the browser's previous one ends), the last sign-in time, the log, the known-device cookie.
 */
export async function openSignedInSession(
  user: User,
  organization: Organization,
  remember: boolean,
  meta: RequestMeta,
  previousToken: string | undefined,
  how: { details: string; knownDevice: boolean },
): Promise<SignedIn> {
  if (previousToken) await deleteSessionByToken(previousToken);
  const session = await createSession(user.id, remember, meta);
  const lastLoginAt = new Date();
  await db().update(users).set({ lastLoginAt }).where(eq(users.id, user.id));
  await recordActivity({
    organizationId: organization.id,
    userId: user.id,
    type: "login",
    status: "success",
    action: "Signed in",
    details: how.details,
    meta,
  });
  // A browser that is not a known device of the account: the member is told (bell, and e-mail by the
  // rule). Not on the account's first sign-in: every browser is new then.
  if (user.lastLoginAt)
    await notifyNewDeviceSignIn({ user, organizationId: organization.id, meta, knownDevice: how.knownDevice, at: lastLoginAt });
  const messagesUsed = await messagesUsedThisMonth(organization.id);
  return {
    ok: true,
    user: toAuthUser({ ...user, lastLoginAt }, organization, messagesUsed),
    role: roleOf(user),
    setCookie: session.setCookie,
    deviceCookie: knownDeviceCookieHeader(user),
  };
}
