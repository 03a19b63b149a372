import * as z from "zod/mini";
import {
  CREDENTIAL_MAX,
  PAYMENTS_MESSAGES,
  SHORTCODE_ENVIRONMENT_OPTIONS,
  SHORTCODE_KIND_OPTIONS,
  SHORTCODE_LABEL_MAX,
  SHORTCODE_PATTERN,
} from "./payments-rules";
import { withoutBidiControls } from "~/lib/names";

export * from "./payments-rules";

const label = z.string({ error: () => PAYMENTS_MESSAGES.labelRequired }).check(
  z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
  z.minLength(1, { error: () => PAYMENTS_MESSAGES.labelRequired, abort: true }),
  z.maxLength(SHORTCODE_LABEL_MAX, { error: () => PAYMENTS_MESSAGES.labelMax }),
);

/** A credential pasted from the Daraja portal: spaces around it (and inside it) are not part of it. */
const credential = (required: () => string) =>
  z.string({ error: required }).check(
    z.overwrite((v) => v.replace(/\s+/g, "")),
    z.minLength(1, { error: required, abort: true }),
    z.maxLength(CREDENTIAL_MAX, { error: () => PAYMENTS_MESSAGES.credentialMax }),
  );

/** Left empty: the stored one is kept. */
const optionalCredential = z.optional(
  z.string().check(
    z.overwrite((v) => v.replace(/\s+/g, "")),
    z.maxLength(CREDENTIAL_MAX, { error: () => PAYMENTS_MESSAGES.credentialMax }),
  ),
);

const digits = (error: () => string) =>
  z.string({ error }).check(
    z.overwrite((v) => v.replace(/\s+/g, "")),
    z.regex(SHORTCODE_PATTERN, { error }),
  );

/** A new shortcode: a till needs its till number, a paybill has none. */
export const AddShortcodeSchema = z
  .object({
    label,
    kind: z.enum(SHORTCODE_KIND_OPTIONS, { error: () => PAYMENTS_MESSAGES.kind }),
    businessShortCode: digits(() => PAYMENTS_MESSAGES.shortcode),
    tillNumber: z.optional(z.string().check(z.overwrite((v) => v.replace(/\s+/g, "")))),
    consumerKey: credential(() => PAYMENTS_MESSAGES.keyRequired),
    consumerSecret: credential(() => PAYMENTS_MESSAGES.secretRequired),
    passkey: credential(() => PAYMENTS_MESSAGES.passkeyRequired),
    environment: z.enum(SHORTCODE_ENVIRONMENT_OPTIONS, { error: () => PAYMENTS_MESSAGES.environment }),
  })
  .check(
    z.superRefine((value, ctx) => {
      const till = value.tillNumber ?? "";
      if (value.kind === "till" && !SHORTCODE_PATTERN.test(till))
        ctx.addIssue({ code: "custom", path: ["tillNumber"], message: PAYMENTS_MESSAGES.tillRequired });
      if (value.kind === "paybill" && till)
        ctx.addIssue({ code: "custom", path: ["tillNumber"], message: PAYMENTS_MESSAGES.tillForPaybill });
    }),
  );
export type AddShortcodeInput = z.output<typeof AddShortcodeSchema>;

/** A change: the name, and any credential given (an empty one keeps the stored one). */
export const EditShortcodeSchema = z.object({
  shortcode: z.catch(z.string(), ""),
  label,
  consumerKey: optionalCredential,
  consumerSecret: optionalCredential,
  passkey: optionalCredential,
});
export type EditShortcodeInput = z.output<typeof EditShortcodeSchema>;

/** A button about one shortcode (test, make default). */
export const ShortcodeButtonSchema = z.object({ shortcode: z.catch(z.string(), "") });

/** Remove, once confirmed. */
export const RemoveShortcodeSchema = z.object({ shortcode: z.catch(z.string(), ""), confirm: z.catch(z.string(), "") });

/** Settings → Payments' "Match": a payment received without a request, and the reference of the request it was for. */
export const MatchReceiptSchema = z.object({
  receipt: z.catch(z.string(), ""),
  reference: z.catch(z.string().check(z.trim(), z.maxLength(40)), ""),
});

/** "Create the payment template" (Settings → Payments, decision 140): a button with no field. */
export const PaymentTemplateSchema = z.object({});
