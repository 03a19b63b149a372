import { z } from "zod";
import type { Route } from "./+types/auth.verify-otp";
import { EmailOnlySchema, OtpSchema } from "~/lib/schemas/auth";
import { verifySignupCode } from "~/.server/domains/auth/verification";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

const VerifyPayload = z.object({ email: EmailOnlySchema.shape.email, otp: z.coerce.string().pipe(OtpSchema.shape.otp) });

export async function loader() {
  return methodNotAllowed("POST");
}

export async function action({ request, context }: Route.ActionArgs) {
  const body = await readJsonBody(request, VerifyPayload);
  if (!body.ok) return body.response;
  const outcome = await verifySignupCode(body.value.email, body.value.otp, requestMeta(request, context));
  if (!outcome.ok) return jsonError(outcome.status, outcome.message, { extra: { isVerified: false } });
  return Response.json(
    { isVerified: true, message: outcome.message },
    { headers: { "Set-Cookie": await signedCookies().otpEmail.serialize("", { maxAge: 0 }) } },
  );
}
