import { z } from "zod";
import type { Route } from "./+types/auth.signup";
import { SignupSchema } from "~/lib/schemas/auth";
import { createSignup, SIGNUP_SUCCESS } from "~/.server/domains/auth/signup";
import { referralAttribution } from "~/.server/domains/revenue-share/referral";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

// The spec's payload: usertype defaults to 'individual' and agreedToTerms to true; nobody signs up as an admin.
const SignupPayload = z.looseObject({
  usertype: z.literal("individual", { error: "Invalid user type." }).optional(),
  agreedToTerms: z.boolean().default(true),
});

// One parse, so the form's messages (an e-mail with NUL is "Email is invalid") come before readJsonBody's NUL check.
// SignupSchema's input type (every field optional) is looser than the payload's output; zod's pipe wants them equal.
const SignupRequest = z.intersection(
  z.pipe(SignupPayload, SignupSchema as z.core.$ZodType<z.output<typeof SignupSchema>, z.output<typeof SignupPayload>>),
  // A partner's referral code (issue 46); one that names no active partner is ignored.
  // Only that key (a plain object drops the rest): the signup fields, cleaned by the pipe, are merged once.
  z.object({ ref: z.string().max(64).optional() }),
);

export async function loader() {
  return methodNotAllowed("POST");
}

export async function action({ request, context }: Route.ActionArgs) {
  const body = await readJsonBody(request, SignupRequest);
  if (!body.ok) return body.response;
  const v = body.value;
  const outcome = await createSignup(
    {
      firstName: v.firstName!,
      lastName: v.lastName!,
      businessName: v.businessName,
      email: v.email!,
      phoneNumber: v.phoneNumber,
      password: v.password!,
      withOrganisation: referralAttribution(v.ref),
    },
    requestMeta(request, context),
  );
  if (!outcome.ok) return jsonError(outcome.status, outcome.message);
  return Response.json(
    { message: SIGNUP_SUCCESS, email: outcome.email },
    { status: 201, headers: { "Set-Cookie": await signedCookies().otpEmail.serialize(outcome.email) } },
  );
}
