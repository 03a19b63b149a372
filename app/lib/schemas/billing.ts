import * as z from "zod/mini";
import { TOPUP_METHODS, DISPUTE_REASON_MIN, DISPUTE_REASON_LIMIT, BILLING_MESSAGES, topupAmountKes } from "./billing-rules";
export {
  TOPUP_LIMITS_KES,
  TOPUP_PRESETS_KES,
  TOPUP_DEFAULT_KES,
  TOPUP_METHODS,
  TOPUP_METHOD_WORDS,
  DISPUTE_REASON_MIN,
  DISPUTE_REASON_LIMIT,
  BILLING_MESSAGES,
  topupAmountKes,
} from "./billing-rules";
export type { TopupMethod } from "./billing-rules";

/**
 * The /billing forms (issue 17): a top-up, a plan change, the wallet's alerts and an invoice's
 * dispute. The same words as the server's refusals (app/.server/domains/billing/payments.ts and settings.ts;
 * tests/integration/billing-page.test.ts checks they agree), so the browser says what the server would.
 */

export const TopupSchema = z
  .object({
    amount: z.string({ error: () => BILLING_MESSAGES.amount }).check(z.maxLength(20, { error: () => BILLING_MESSAGES.amount })),
    method: z.optional(z.enum(TOPUP_METHODS, { error: () => BILLING_MESSAGES.method })),
    phone: z.optional(z.string().check(z.trim(), z.maxLength(32, { error: () => BILLING_MESSAGES.phone }))),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (topupAmountKes(value.amount) === null) ctx.addIssue({ code: "custom", path: ["amount"], message: BILLING_MESSAGES.amount });
      if ((value.method ?? "mpesa") === "mpesa" && !value.phone)
        ctx.addIssue({ code: "custom", path: ["phone"], message: BILLING_MESSAGES.phone });
    }),
  );

/** A plan and its billing type as one choice, "growth/postpaid". */
export const PlanChoiceSchema = z.object({
  choice: z
    .string({ error: () => BILLING_MESSAGES.plan })
    .check(z.regex(/^(starter|growth|enterprise)\/(prepaid|postpaid)$/, { error: () => BILLING_MESSAGES.plan })),
});

const shillings = z.optional(z.string().check(z.trim(), z.maxLength(20)));

/** The wallet's alerts: empty turns each off; the server checks the figures and the phone. */
export const WalletAlertsSchema = z.object({
  lowBalance: shillings,
  autoTopupBelow: shillings,
  autoTopupAmount: shillings,
  autoTopupPhone: z.optional(z.string().check(z.trim(), z.maxLength(32))),
});

export const DisputeSchema = z.object({
  reason: z
    .string({ error: () => BILLING_MESSAGES.reasonShort })
    .check(
      z.trim(),
      z.minLength(DISPUTE_REASON_MIN, { error: () => BILLING_MESSAGES.reasonShort }),
      z.maxLength(DISPUTE_REASON_LIMIT, { error: () => BILLING_MESSAGES.reasonLong }),
    ),
});
