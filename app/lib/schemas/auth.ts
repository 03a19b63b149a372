import { z } from "zod";

// Texts are the spec's, word for word (sections 5 and 8).
export const EMAIL_PATTERN = /^\S+@\S+\.\S+$/;
export const MESSAGES = {
  emailRequired: "Email is required",
  emailInvalid: "Email is invalid",
  passwordRequired: "Password is required",
  signinPasswordMin: "Password must be at least 6 characters",
  requiredFields: "Please fill in all required fields.",
  signupPasswordsMismatch: "Passwords do not match.",
  terms: "You must agree to the terms and conditions.",
  otpIncomplete: "Please enter the complete 6-digit OTP code",
  currentRequired: "Current password is required",
  newRequired: "New password is required",
  newMin: "Password must be at least 8 characters long",
  confirmRequired: "Please confirm your new password",
  passwordsMismatch: "Passwords do not match",
  mustDiffer: "New password must be different from current password",
  businessNameRequired: "Business name is required",
  phoneInvalid: "Please enter a valid phone number",
} as const;

export const SIGNIN_PASSWORD_MIN = 6;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

const email = z
  .string({ error: MESSAGES.emailRequired })
  .trim()
  .min(1, { message: MESSAGES.emailRequired, abort: true })
  .max(254, MESSAGES.emailInvalid)
  .regex(EMAIL_PATTERN, MESSAGES.emailInvalid);

export const SigninSchema = z.object({
  email,
  password: z
    .string({ error: MESSAGES.passwordRequired })
    .min(1, { message: MESSAGES.passwordRequired, abort: true })
    .min(SIGNIN_PASSWORD_MIN, MESSAGES.signinPasswordMin)
    .max(PASSWORD_MAX),
  remember: z.boolean().optional(),
  from: z.string().optional(),
});

const optionalText = (max: number) => z.string().trim().max(max).optional();

/** Sign-up fields; the form and `POST /api/auth/signup` share it. */
export const SignupSchema = z
  .object({
    firstName: optionalText(80),
    lastName: optionalText(80),
    businessName: optionalText(120),
    email: z.string().trim().max(254).optional(),
    phoneNumber: optionalText(32),
    password: z.string().max(PASSWORD_MAX).optional(),
    confirmPassword: z.string().max(PASSWORD_MAX).optional(),
    agreedToTerms: z.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.firstName || !value.lastName || !value.email || !value.password) {
      ctx.addIssue({ code: "custom", path: [], message: MESSAGES.requiredFields });
      return;
    }
    if (!EMAIL_PATTERN.test(value.email)) ctx.addIssue({ code: "custom", path: ["email"], message: MESSAGES.emailInvalid });
    if (value.password.length < PASSWORD_MIN) ctx.addIssue({ code: "custom", path: ["password"], message: MESSAGES.newMin });
    if (value.confirmPassword !== undefined && value.confirmPassword !== value.password)
      ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.signupPasswordsMismatch });
    if (!value.agreedToTerms) ctx.addIssue({ code: "custom", path: ["agreedToTerms"], message: MESSAGES.terms });
  });

/** Six digits, from one field or from the six boxes joined. */
export const OtpSchema = z.object({
  email: z.string().trim().max(254).optional(),
  otp: z
    .string({ error: MESSAGES.otpIncomplete })
    .transform((v) => v.replace(/\D/g, ""))
    .pipe(z.string().length(6, MESSAGES.otpIncomplete)),
});

export const EmailOnlySchema = z.object({ email });

function newPasswordRules<T extends { newPassword?: string; confirmPassword?: string }>(value: T, ctx: z.RefinementCtx) {
  if (!value.newPassword) ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.newRequired });
  else if (value.newPassword.length < PASSWORD_MIN) ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.newMin });
  if (!value.confirmPassword) ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.confirmRequired });
  else if (value.newPassword && value.confirmPassword !== value.newPassword)
    ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.passwordsMismatch });
}

export const ChangePasswordSchema = z
  .object({
    currentPassword: z.string().max(PASSWORD_MAX).optional(),
    newPassword: z.string().max(PASSWORD_MAX).optional(),
    confirmPassword: z.string().max(PASSWORD_MAX).optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.currentPassword) ctx.addIssue({ code: "custom", path: ["currentPassword"], message: MESSAGES.currentRequired });
    newPasswordRules(value, ctx);
    if (value.currentPassword && value.newPassword && value.currentPassword === value.newPassword)
      ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.mustDiffer });
  });

export const ResetPasswordSchema = z
  .object({
    otp: z
      .string({ error: MESSAGES.otpIncomplete })
      .transform((v) => v.replace(/\D/g, ""))
      .pipe(z.string().length(6, MESSAGES.otpIncomplete)),
    newPassword: z.string().max(PASSWORD_MAX).optional(),
    confirmPassword: z.string().max(PASSWORD_MAX).optional(),
  })
  .superRefine(newPasswordRules);

export const ProfileSchema = z.object({
  businessName: z.string({ error: MESSAGES.businessNameRequired }).trim().min(1, { message: MESSAGES.businessNameRequired, abort: true }).max(120),
  email,
  phoneNumber: z.string().trim().max(32).optional(),
});
