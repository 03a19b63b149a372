import { createCookie, type Cookie } from "react-router";
import { recordActivity } from "../../activity";
import { env } from "../../../infrastructure/config/env";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { hitRateLimit, RATE_LIMITS, rateLimitMessage } from "../../../infrastructure/security/rate-limit";
import { CODE_TTL_MS } from "../codes";
import { queueCodeMail } from "../code-mail-job";
import { getLocale } from "~/paraglide/runtime";
import { findUserById } from "../users";
import type { Organization, User } from "../../../infrastructure/db/schema";
import { m } from "~/paraglide/messages";
import { deviceName } from "../session-list";

/**
 * Sign-in with a code e-mailed to the account (decision 044): while the account sees more failed
 * sign-ins than one address may make, a browser it does not know needs, after the right password, a
 * code sent to the account's e-mail. The code is the one-time codes' (purpose `signin`: ten minutes,
 * five tries, used once); a signed cookie says whose sign-in this browser is finishing.
 */
export const EMAIL_CODE_COOKIE = "jumbe_email_code";
/** At most one code every 30 s an account: within it, the code already mailed is the one to enter. */
export const SIGNIN_CODE_RESEND_WINDOW = { name: "code:signin-resend", limit: 1, windowSeconds: 30, fixed: true };

/** What the e-mailed code's step says: getters, each read in the language of the request that says it. */
export const EMAIL_CODE_MESSAGES = {
  get askCode() {
    return m.validation_auth_email_code_ask();
  },
  get resent() {
    return m.validation_auth_email_code_resent();
  },
  get timedOut() {
    return m.validation_auth_signin_timed_out();
  },
  wait: (seconds: number) => m.validation_auth_code_wait({ seconds }),
};

export interface PendingSignIn {
  userId: string;
  remember: boolean;
  /** When the right password was entered (ms). */
  issuedAt: number;
}

let cookie: Cookie | undefined;

function pendingCookie() {
  cookie ??= createCookie(EMAIL_CODE_COOKIE, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: env().production || env().APP_URL.startsWith("https://"),
    secrets: [env().SESSION_SECRET],
    maxAge: CODE_TTL_MS / 1000,
  });
  return cookie;
}

export async function clearPendingSignInCookieHeader() {
  return pendingCookie().serialize("", { maxAge: 0 });
}

/** The sign-in this browser is finishing, when its cookie is genuine and not older than a code lives. */
export async function pendingSignInOf(request: Request): Promise<PendingSignIn | null> {
  const value: unknown = await pendingCookie().parse(request.headers.get("cookie"));
  if (!value || typeof value !== "object") return null;
  const { userId, remember, issuedAt } = value as Record<string, unknown>;
  if (typeof userId !== "string" || typeof remember !== "boolean" || typeof issuedAt !== "number") return null;
  const age = Date.now() - issuedAt;
  if (age < 0 || age > CODE_TTL_MS) return null;
  return { userId, remember, issuedAt };
}

/**
 * The account a pending sign-in is for, if it may still finish: verified, and its password not changed
 * since (a reset by the owner ends every sign-in in progress).
 */
export async function accountOfPendingSignIn(pending: PendingSignIn | null) {
  if (!pending) return null;
  const account = await findUserById(pending.userId);
  if (!account || !account.user.isVerified) return null;
  const changed = account.user.passwordChangedAt?.getTime() ?? 0;
  return changed > pending.issuedAt ? null : account;
}

type MailOutcome = { ok: true; sent: boolean; retryAfterSeconds: number } | { ok: false; message: string };

/**
 * E-mails a new sign-in code, at most one every 30 s (within it nothing is sent: the code mailed last
 * is still the one to enter) and ten an hour: each code takes five guesses, and someone who knows the
 * password must not get unbounded guesses at the codes.
 */
async function mailSignInCode(user: Pick<User, "id" | "email">, meta: RequestMeta): Promise<MailOutcome> {
  const window = await hitRateLimit(SIGNIN_CODE_RESEND_WINDOW, user.id);
  if (!window.allowed) return { ok: true, sent: false, retryAfterSeconds: window.retryAfterSeconds };
  const quota = await hitRateLimit(RATE_LIMITS.signinCodeMail, user.id);
  if (!quota.allowed) return { ok: false, message: rateLimitMessage(quota.retryAfterSeconds) };
  // Issued and mailed by a job: a mail server that is down fails no sign-in (code-mail-job.ts).
  await queueCodeMail({
    purpose: "signin",
    userId: user.id,
    to: user.email,
    locale: getLocale(),
    from: { device: deviceName(meta.userAgent), ip: meta.ip },
  });
  return { ok: true, sent: true, retryAfterSeconds: SIGNIN_CODE_RESEND_WINDOW.windowSeconds };
}

/** After the right password from a browser the account does not know, while it is under attack: the code goes out; the answer carries the cookie. */
export async function startEmailCodeStep(
  user: User,
  organization: Organization,
  remember: boolean,
  meta: RequestMeta,
): Promise<{ ok: true; cookie: string } | { ok: false; message: string }> {
  const mailed = await mailSignInCode(user, meta);
  if (!mailed.ok) return mailed;
  await recordActivity({
    organizationId: organization.id,
    userId: user.id,
    type: "security",
    status: "warning",
    action: "Sign-in code e-mailed",
    details: "Right password from a new browser while many sign-ins fail",
    meta,
  });
  const pending: PendingSignIn = { userId: user.id, remember, issuedAt: Date.now() };
  return { ok: true, cookie: await pendingCookie().serialize(pending) };
}

export type ResendOutcome =
  { ok: true; message: string; cookie: string } | { ok: false; status: 401 | 429; message: string; restart: boolean };

/**
 * "Send a new code" on the code page: the same 30 s window and hourly quota as the password step's
 * mail. The pending sign-in then lives as long as the new code.
 */
export async function resendSignInCode(pending: PendingSignIn | null, meta: RequestMeta): Promise<ResendOutcome> {
  const account = await accountOfPendingSignIn(pending);
  if (!pending || !account) return { ok: false, status: 401, message: EMAIL_CODE_MESSAGES.timedOut, restart: true };
  const mailed = await mailSignInCode(account.user, meta);
  if (!mailed.ok) return { ok: false, status: 429, message: mailed.message, restart: false };
  if (!mailed.sent) return { ok: false, status: 429, message: EMAIL_CODE_MESSAGES.wait(mailed.retryAfterSeconds), restart: false };
  const renewed: PendingSignIn = { ...pending, issuedAt: Date.now() };
  return { ok: true, message: EMAIL_CODE_MESSAGES.resent, cookie: await pendingCookie().serialize(renewed) };
}
