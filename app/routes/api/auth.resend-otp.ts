import type { Route } from "./+types/auth.resend-otp";
import { EmailOnlySchema } from "~/lib/schemas/auth";
import { resendSignupCode } from "~/.server/domains/auth/verification";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

export async function loader() {
  return methodNotAllowed("POST");
}

export async function action({ request, context }: Route.ActionArgs) {
  const body = await readJsonBody(request, EmailOnlySchema);
  if (!body.ok) return body.response;
  const outcome = await resendSignupCode(body.value.email, requestMeta(request, context));
  if (!outcome.ok) return jsonError(429, outcome.message, { headers: { "Retry-After": String(outcome.retryAfterSeconds) } });
  return Response.json({ message: outcome.message });
}
