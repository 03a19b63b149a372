import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { englishOf, words } from "../../../infrastructure/words/said";
import { openSignedInSession, SIGNIN_MESSAGES, type SignedIn } from "../signin";
import { findUserById } from "../users";
import { answerChallenge } from "./challenge";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";

export type TwoFactorSigninResult =
  (SignedIn & { notice?: string }) | { ok: false; status: 400 | 401 | 403 | 429; message: string; restart: boolean };

/**
 * Sign-in, step two: the challenge answered with a right code opens the session. The account is
 * looked at again here: a suspension or a removal during the five minutes is honoured.
 */
export async function completeTwoFactorSignIn(
  challengeToken: string | undefined,
  code: string,
  meta: RequestMeta,
  previousToken?: string,
  deviceCookie?: string,
): Promise<TwoFactorSigninResult> {
  const answer = await answerChallenge(challengeToken, code, meta, deviceCookie);
  if (!answer.ok) return answer;
  const account = await findUserById(answer.userId);
  if (!account || !account.user.isVerified) return { ok: false, status: 401, message: TWO_FACTOR_MESSAGES.challengeGone, restart: true };
  if (account.organization.status === "suspended") return { ok: false, status: 403, message: SIGNIN_MESSAGES.suspended, restart: true };
  const signedIn = await openSignedInSession(account.user, account.organization, answer.remember, meta, previousToken, {
    details: englishOf(
      words("app_activity_detail_signed_in_two_factor", {
        session: words(answer.remember ? "app_activity_detail_remembered_30_days" : "app_activity_detail_browser_session"),
        method: words(answer.method === "app" ? "app_activity_detail_two_factor_app" : "app_activity_detail_two_factor_recovery_code"),
      }),
    ),
    knownDevice: answer.knownDevice,
  });
  return answer.method === "recovery" ? { ...signedIn, notice: TWO_FACTOR_MESSAGES.recoveryUsed(answer.recoveryCodesLeft ?? 0) } : signedIn;
}
