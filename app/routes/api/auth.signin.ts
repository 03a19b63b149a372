import type { Route } from "./+types/auth.signin";
import { SigninSchema } from "~/lib/schemas/auth";
import { signedInHeaders, signIn, SIGNIN_MESSAGES } from "~/.server/domains/auth/signin";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { deviceCookieValue } from "~/.server/domains/auth/known-device";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

export async function loader() {
  return methodNotAllowed("POST");
}

export async function action({ request, context }: Route.ActionArgs) {
  const body = await readJsonBody(request, SigninSchema);
  if (!body.ok) return body.response;
  const { email, password, remember } = body.value;
  const outcome = await signIn(
    email,
    password,
    remember === true,
    requestMeta(request, context),
    sessionToken(request),
    deviceCookieValue(request),
  );
  if (outcome.ok) {
    return Response.json({ message: SIGNIN_MESSAGES.success, user: outcome.user }, { headers: signedInHeaders(outcome) });
  }
  if (outcome.reason === "two_factor") {
    // The password was right; POST the app's code (or a recovery code) to /api/auth/two-factor with this cookie.
    return Response.json(
      { message: outcome.message, requiresTwoFactor: true },
      { status: 202, headers: { "Set-Cookie": outcome.challengeCookie, "Cache-Control": "no-store" } },
    );
  }
  if (outcome.reason === "email_code") {
    // The account sees many failed sign-ins: POST the e-mailed code to /api/auth/email-code with this cookie.
    return Response.json(
      { message: outcome.message, requiresEmailCode: true },
      { status: 202, headers: { "Set-Cookie": outcome.codeCookie, "Cache-Control": "no-store" } },
    );
  }
  if (outcome.reason === "unverified") {
    return jsonError(403, outcome.message, {
      headers: { "Set-Cookie": await signedCookies().otpEmail.serialize(outcome.email) },
      extra: { requiresVerification: true },
    });
  }
  return jsonError(outcome.status, outcome.message);
}
