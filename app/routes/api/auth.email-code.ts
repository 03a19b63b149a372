import type { Route } from "./+types/auth.email-code";
import { OtpSchema } from "~/lib/schemas/auth";
import { signedInHeaders, SIGNIN_MESSAGES } from "~/.server/domains/auth/signin";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { clearPendingSignInCookieHeader, pendingSignInOf } from "~/.server/domains/auth/email-code/pending";
import { completeEmailCodeSignIn } from "~/.server/domains/auth/email-code/sign-in";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

export async function loader() {
  return methodNotAllowed("POST");
}

/**
 * Sign-in with the e-mailed code, for the JSON API: `{ "otp": "123456" }` with the cookie that
 * `POST /api/auth/signin` set when it answered `202 {"requiresEmailCode": true}`.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const body = await readJsonBody(request, OtpSchema);
  if (!body.ok) return body.response;
  const outcome = await completeEmailCodeSignIn(
    await pendingSignInOf(request),
    body.value.otp,
    requestMeta(request, context),
    sessionToken(request),
  );
  const headers = new Headers({ "Cache-Control": "no-store" });
  if (outcome.ok) {
    const signedIn = signedInHeaders(outcome, headers);
    signedIn.append("Set-Cookie", await clearPendingSignInCookieHeader());
    return Response.json({ message: SIGNIN_MESSAGES.success, user: outcome.user }, { headers: signedIn });
  }
  if (outcome.reason === "two_factor") {
    // Two-factor sign-in is on: POST the app's code to /api/auth/two-factor with this cookie.
    headers.append("Set-Cookie", outcome.challengeCookie);
    headers.append("Set-Cookie", await clearPendingSignInCookieHeader());
    return Response.json({ message: outcome.message, requiresTwoFactor: true }, { status: 202, headers });
  }
  if (outcome.restart) headers.append("Set-Cookie", await clearPendingSignInCookieHeader());
  return jsonError(outcome.status, outcome.message, { headers, extra: { restart: outcome.restart } });
}
