// The limits and words of the auth forms, without zod: pages import them from here and load the
// schemas (auth.ts) only when a form is used (decision 061).

// Texts are the spec's, word for word (sections 5 and 8).
// Text, at sign, text, dot, text with no whitespace (the spec's rule); control characters (NUL
// among them, which PostgreSQL cannot store) are no more an address than whitespace is.
const EMAIL_CHAR = "[^\\s\\u0000-\\u001f\\u007f-\\u009f]";

export const EMAIL_PATTERN = new RegExp(`^${EMAIL_CHAR}+@${EMAIL_CHAR}+\\.${EMAIL_CHAR}+$`);

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
