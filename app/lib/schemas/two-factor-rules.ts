// The limits and words of the two-factor forms, without zod: pages import them from here and load the
// schemas (two-factor.ts) only when a form is used (decision 061).

export const TWO_FACTOR_FORM_MESSAGES = {
  codeRequired: "Enter the 6-digit code from your authenticator app.",
  codeShape: "Enter the 6 digits from your app, or a recovery code like k7m2p-x9qrt.",
  appCodeShape: "Enter the 6 digits your authenticator app shows.",
  passwordRequired: "Your password is required",
} as const;
