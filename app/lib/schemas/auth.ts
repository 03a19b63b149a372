// zod/mini keeps these schemas (shared with the browser for inline validation) about 30 KB lighter than classic zod.
import * as z from "zod/mini";
import { withoutBidiControls } from "~/lib/names";
import { EMAIL_PATTERN, MESSAGES, SIGNIN_PASSWORD_MIN, PASSWORD_MIN, PASSWORD_MAX } from "./auth-rules";
export { EMAIL_PATTERN, MESSAGES, SIGNIN_PASSWORD_MIN, PASSWORD_MIN, PASSWORD_MAX } from "./auth-rules";

/** An e-mail address: required, trimmed, at most 254 characters, the spec's shape. */
export const emailField = z
  .string({ error: () => MESSAGES.emailRequired })
  .check(
    z.trim(),
    z.minLength(1, { error: () => MESSAGES.emailRequired, abort: true }),
    z.maxLength(254, { error: () => MESSAGES.emailInvalid }),
    z.regex(EMAIL_PATTERN, { error: () => MESSAGES.emailInvalid }),
  );

const optionalText = (max: number) => z.optional(z.string().check(z.trim(), z.maxLength(max)));
/** A name: bidirectional controls dropped (app/lib/names.ts), then trimmed; a name of nothing else is empty. */
const optionalName = (max: number) => z.optional(z.string().check(z.overwrite(withoutBidiControls), z.trim(), z.maxLength(max)));
const optionalSecret = () => z.optional(z.string().check(z.maxLength(PASSWORD_MAX)));

const otp = z.pipe(
  z.pipe(
    z.string({ error: () => MESSAGES.otpIncomplete }),
    z.transform((v: string) => v.replace(/\D/g, "")),
  ),
  z.string().check(z.length(6, { error: () => MESSAGES.otpIncomplete })),
);

const email = emailField;

export const SigninSchema = z.object({
  email,
  password: z
    .string({ error: () => MESSAGES.passwordRequired })
    .check(
      z.minLength(1, { error: () => MESSAGES.passwordRequired, abort: true }),
      z.minLength(SIGNIN_PASSWORD_MIN, { error: () => MESSAGES.signinPasswordMin }),
      z.maxLength(PASSWORD_MAX),
    ),
  remember: z.optional(z.boolean()),
  from: z.optional(z.string()),
});

/** Sign-up fields; the form and `POST /api/auth/signup` share it. */
export const SignupSchema = z
  .object({
    firstName: optionalName(80),
    lastName: optionalName(80),
    businessName: optionalName(120),
    email: optionalText(254),
    phoneNumber: optionalText(32),
    password: optionalSecret(),
    confirmPassword: optionalSecret(),
    agreedToTerms: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (!value.firstName || !value.lastName || !value.email || !value.password) {
        ctx.addIssue({ code: "custom", path: [], message: MESSAGES.requiredFields });
        return;
      }
      if (!EMAIL_PATTERN.test(value.email)) ctx.addIssue({ code: "custom", path: ["email"], message: MESSAGES.emailInvalid });
      if (value.password.length < PASSWORD_MIN) ctx.addIssue({ code: "custom", path: ["password"], message: MESSAGES.newMin });
      if (value.confirmPassword !== undefined && value.confirmPassword !== value.password)
        ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.signupPasswordsMismatch });
      if (!value.agreedToTerms) ctx.addIssue({ code: "custom", path: ["agreedToTerms"], message: MESSAGES.terms });
    }),
  );

/** Six digits, from one field or from the six boxes joined. */
export const OtpSchema = z.object({ email: optionalText(254), otp });

export const EmailOnlySchema = z.object({ email });

interface NewPasswordFields {
  newPassword?: string;
  confirmPassword?: string;
}

function newPasswordRules(
  value: NewPasswordFields,
  ctx: { addIssue: (issue: { code: "custom"; path: string[]; message: string }) => void },
) {
  if (!value.newPassword) ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.newRequired });
  else if (value.newPassword.length < PASSWORD_MIN) ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.newMin });
  if (!value.confirmPassword) ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.confirmRequired });
  else if (value.newPassword && value.confirmPassword !== value.newPassword)
    ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.passwordsMismatch });
}

export const ChangePasswordSchema = z
  .object({ currentPassword: optionalSecret(), newPassword: optionalSecret(), confirmPassword: optionalSecret() })
  .check(
    z.superRefine((value, ctx) => {
      if (!value.currentPassword) ctx.addIssue({ code: "custom", path: ["currentPassword"], message: MESSAGES.currentRequired });
      newPasswordRules(value, ctx);
      if (value.currentPassword && value.newPassword && value.currentPassword === value.newPassword)
        ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.mustDiffer });
    }),
  );

export const ResetPasswordSchema = z
  .object({ otp, newPassword: optionalSecret(), confirmPassword: optionalSecret() })
  .check(z.superRefine((value, ctx) => newPasswordRules(value, ctx)));

export const ProfileSchema = z.object({
  businessName: z
    .string({ error: () => MESSAGES.businessNameRequired })
    .check(
      z.overwrite(withoutBidiControls),
      z.trim(),
      z.minLength(1, { error: () => MESSAGES.businessNameRequired, abort: true }),
      z.maxLength(120),
    ),
  email,
  phoneNumber: optionalText(32),
});
