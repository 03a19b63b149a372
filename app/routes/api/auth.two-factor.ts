import type { Route } from "./+types/auth.two-factor";
import { TwoFactorCodeSchema } from "~/lib/schemas/two-factor";
import { signedInHeaders, SIGNIN_MESSAGES } from "~/.server/domains/auth/signin";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { deviceCookieValue } from "~/.server/domains/auth/known-device";
import { challengeToken, clearChallengeCookieHeader } from "~/.server/domains/auth/two-factor/challenge";
import { completeTwoFactorSignIn } from "~/.server/domains/auth/two-factor/sign-in";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

export async function loader() {
  return methodNotAllowed("POST");
}

/** Sign-in, step two, for the JSON API: `{ "code": "123456" }` with the cookie /api/auth/signin set. */
export async function action({ request, context }: Route.ActionArgs) {
  const body = await readJsonBody(request, TwoFactorCodeSchema);
  if (!body.ok) return body.response;
  const outcome = await completeTwoFactorSignIn(
    challengeToken(request),
    body.value.code,
    requestMeta(request, context),
    sessionToken(request),
    deviceCookieValue(request),
  );
  if (outcome.ok) {
    const headers = signedInHeaders(outcome, { "Cache-Control": "no-store" });
    headers.append("Set-Cookie", clearChallengeCookieHeader());
    return Response.json({ message: outcome.notice ?? SIGNIN_MESSAGES.success, user: outcome.user }, { headers });
  }
  return jsonError(outcome.status, outcome.message, {
    headers: outcome.restart
      ? { "Set-Cookie": clearChallengeCookieHeader(), "Cache-Control": "no-store" }
      : { "Cache-Control": "no-store" },
    extra: { restart: outcome.restart },
  });
}
