import { and, eq, gt, lt, sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { twoFactorChallenges } from "../../../infrastructure/db/schema";
import { recordActivity } from "../../activity";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { randomToken, sha256 } from "../../../infrastructure/security/crypto";
import { rateLimitMessage } from "../../../infrastructure/security/rate-limit";
import { env } from "../../../infrastructure/config/env";
import { readCookie } from "../../../infrastructure/http/cookies";
import { knownDeviceId } from "../known-device";
import { countTwoFactorFailure, takeCodeAttempt } from "../signin-attempts";
import { findUserById } from "../users";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { checkSecondFactor } from "./second-factor";

/**
 * Sign-in, step two. After the right password, a user with two-factor sign-in gets no session but a
 * challenge: a random token in a short-lived cookie (only its SHA-256 is stored), good for five
 * minutes and five wrong codes, answered once.
 */
export const CHALLENGE_COOKIE = "jumbe_2fa";
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const CHALLENGE_MAX_ATTEMPTS = 5;

function challengeCookieHeader(token: string, maxAgeSeconds: number) {
  const parts = [`${CHALLENGE_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (env().production || env().APP_URL.startsWith("https://")) parts.push("Secure");
  return parts.join("; ");
}

export const clearChallengeCookieHeader = () => challengeCookieHeader("", 0);

export function challengeToken(request: Request) {
  const token = readCookie(request, CHALLENGE_COOKIE);
  return token && token.length <= 100 ? token : undefined;
}

/** Opens a challenge for the user; returns the Set-Cookie header that carries it. */
export async function openChallenge(userId: string, remember: boolean) {
  const token = randomToken(32);
  // One open challenge a user: a second password sign-in replaces the first.
  await db().delete(twoFactorChallenges).where(eq(twoFactorChallenges.userId, userId));
  await db()
    .insert(twoFactorChallenges)
    .values({ id: sha256(token), userId, remember, expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS) });
  return challengeCookieHeader(token, CHALLENGE_TTL_MS / 1000);
}

/** The open challenge of this cookie's token, if it has not expired or run out of tries. */
export async function openChallengeOf(token: string | undefined) {
  if (!token) return null;
  const [row] = await db()
    .select()
    .from(twoFactorChallenges)
    .where(
      and(
        eq(twoFactorChallenges.id, sha256(token)),
        gt(twoFactorChallenges.expiresAt, new Date()),
        lt(twoFactorChallenges.attempts, CHALLENGE_MAX_ATTEMPTS),
      ),
    );
  return row ?? null;
}

export type ChallengeAnswer =
  | { ok: true; userId: string; remember: boolean; method: "app" | "recovery"; recoveryCodesLeft?: number; knownDevice: boolean }
  | { ok: false; status: 400 | 401 | 429; message: string; restart: boolean };

/**
 * Checks a code against the challenge. Limits: five a challenge, after which it is gone and the
 * password is asked again, and the one-time codes' per address (30 a quarter hour) and per account
 * and address (15), or, from a known device of the account, that device's 15 (decision 044): wrong
 * codes from one place do not refuse the owner's own code from another. Wrong codes from browsers the
 * account does not know are also counted for the account, across addresses (signin-attempts.ts).
 */
export async function answerChallenge(
  token: string | undefined,
  code: string,
  meta: RequestMeta,
  deviceCookie?: string,
): Promise<ChallengeAnswer> {
  const challenge = await openChallengeOf(token);
  if (!challenge) return { ok: false, status: 401, message: TWO_FACTOR_MESSAGES.challengeGone, restart: true };
  const account = await findUserById(challenge.userId);
  const device = account ? knownDeviceId(deviceCookie, account.user) : null;
  const limited = await takeCodeAttempt("2fa", challenge.userId, meta.ip, device);
  if (!limited.allowed) return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds), restart: false };

  const factor = await checkSecondFactor(challenge.userId, code);
  if (!factor.ok) {
    const [after] = await db()
      .update(twoFactorChallenges)
      .set({ attempts: sql`${twoFactorChallenges.attempts} + 1` })
      .where(eq(twoFactorChallenges.id, challenge.id))
      .returning({ attempts: twoFactorChallenges.attempts });
    if (!device) await countTwoFactorFailure(challenge.userId);
    if (account)
      await recordActivity({
        organizationId: account.organization.id,
        userId: challenge.userId,
        type: "login",
        status: "error",
        action: "Sign-in failed",
        details: "Wrong two-factor code",
        meta,
      });
    if (!after || after.attempts >= CHALLENGE_MAX_ATTEMPTS) {
      await db().delete(twoFactorChallenges).where(eq(twoFactorChallenges.id, challenge.id));
      return { ok: false, status: 401, message: TWO_FACTOR_MESSAGES.tooManyCodes, restart: true };
    }
    return { ok: false, status: 400, message: TWO_FACTOR_MESSAGES.wrongCode, restart: false };
  }
  // Answered once: of two requests with right codes, only the one that deletes the challenge goes on.
  const closed = await db()
    .delete(twoFactorChallenges)
    .where(eq(twoFactorChallenges.id, challenge.id))
    .returning({ id: twoFactorChallenges.id });
  if (!closed.length) return { ok: false, status: 401, message: TWO_FACTOR_MESSAGES.challengeGone, restart: true };
  return {
    ok: true,
    userId: challenge.userId,
    remember: challenge.remember,
    method: factor.method,
    recoveryCodesLeft: factor.recoveryCodesLeft,
    knownDevice: device !== null,
  };
}

export async function deleteExpiredChallenges() {
  await db().delete(twoFactorChallenges).where(lt(twoFactorChallenges.expiresAt, new Date()));
}
