import { recordActivity } from "../../activity";
import { englishOf, words } from "../../../infrastructure/words/said";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { rateLimitMessage } from "../../../infrastructure/security/rate-limit";
import { codeMessage, consumeCode } from "../codes";
import { openSignedInSession, SIGNIN_MESSAGES, type SignedIn } from "../signin";
import { takeCodeAttempt } from "../signin-attempts";
import { openChallenge } from "../two-factor/challenge";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { accountOfPendingSignIn, EMAIL_CODE_MESSAGES, type PendingSignIn } from "./pending";

export type EmailCodeSigninResult =
  | SignedIn
  | { ok: false; status: 202; message: string; reason: "two_factor"; challengeCookie: string }
  | { ok: false; status: 400 | 401 | 403 | 429; message: string; reason: "refused"; restart: boolean };

const refused = (status: 400 | 401 | 403 | 429, message: string, restart: boolean) =>
  ({ ok: false, status, message, reason: "refused", restart }) as const;

/**
 * Sign-in with the e-mailed code (decision 044): the right code opens the session, or, with
 * two-factor sign-in on, the authenticator step as after a password. Wrong codes are limited by the
 * code (five), by the address and by the account and address; never by the account alone.
 */
export async function completeEmailCodeSignIn(
  pending: PendingSignIn | null,
  code: string,
  meta: RequestMeta,
  previousToken?: string,
): Promise<EmailCodeSigninResult> {
  const account = await accountOfPendingSignIn(pending);
  if (!pending || !account) return refused(401, EMAIL_CODE_MESSAGES.timedOut, true);
  const { user, organization } = account;
  const limited = await takeCodeAttempt("signin-code", user.id, meta.ip, null);
  if (!limited.allowed) return refused(429, rateLimitMessage(limited.retryAfterSeconds), false);

  const check = await consumeCode(user.id, "signin", code);
  if (!check.ok) {
    await recordActivity({
      organizationId: organization.id,
      userId: user.id,
      type: "login",
      status: "error",
      action: "Sign-in failed",
      details: "Wrong e-mailed sign-in code",
      meta,
    });
    return refused(400, codeMessage(check.reason), false);
  }
  if (organization.status === "suspended") return refused(403, SIGNIN_MESSAGES.suspended, true);
  if (user.twoFactorEnabledAt)
    return {
      ok: false,
      status: 202,
      message: TWO_FACTOR_MESSAGES.askCode,
      reason: "two_factor",
      challengeCookie: await openChallenge(user.id, pending.remember),
    };
  return openSignedInSession(user, organization, pending.remember, meta, previousToken, {
    details: englishOf(
      words("app_activity_detail_signed_in_email_code", {
        session: words(pending.remember ? "app_activity_detail_remembered_30_days" : "app_activity_detail_browser_session"),
      }),
    ),
    knownDevice: false,
  });
}
