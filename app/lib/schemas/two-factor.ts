import * as z from "zod/mini";
import { PASSWORD_MAX } from "./auth";
import { TWO_FACTOR_FORM_MESSAGES } from "./two-factor-rules";
export { TWO_FACTOR_FORM_MESSAGES } from "./two-factor-rules";

/** A code from the app (6 digits, spaces allowed) or a recovery code (10 letters and digits, a dash allowed). */
const anyCode = z.pipe(
  z
    .string({ error: () => TWO_FACTOR_FORM_MESSAGES.codeRequired })
    .check(z.trim(), z.minLength(1, { error: () => TWO_FACTOR_FORM_MESSAGES.codeRequired })),
  z.string().check(
    z.refine((v) => /^\d{3} ?\d{3}$/.test(v) || /^[a-zA-Z0-9]{5}[- ]?[a-zA-Z0-9]{5}$/.test(v), {
      error: () => TWO_FACTOR_FORM_MESSAGES.codeShape,
    }),
  ),
);

/** Only the app's code: confirming the set-up proves the app holds the secret. */
const appCode = z.pipe(
  z
    .string({ error: () => TWO_FACTOR_FORM_MESSAGES.codeRequired })
    .check(z.trim(), z.minLength(1, { error: () => TWO_FACTOR_FORM_MESSAGES.codeRequired })),
  z.string().check(z.regex(/^\d{3} ?\d{3}$/, { error: () => TWO_FACTOR_FORM_MESSAGES.appCodeShape })),
);

const password = z
  .string({ error: () => TWO_FACTOR_FORM_MESSAGES.passwordRequired })
  .check(z.minLength(1, { error: () => TWO_FACTOR_FORM_MESSAGES.passwordRequired }), z.maxLength(PASSWORD_MAX));

/** Sign-in, step two. */
export const TwoFactorCodeSchema = z.object({ code: anyCode, from: z.optional(z.string().check(z.maxLength(2000))) });
/** Confirming the set-up. */
export const ConfirmSetupSchema = z.object({ code: appCode });
/** Turning it off: the password and a code. */
export const TurnOffSchema = z.object({ password, code: anyCode });
/** New recovery codes: the password. */
export const RenewCodesSchema = z.object({ password });
