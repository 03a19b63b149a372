import * as z from "zod/mini";

/**
 * The /billing forms (issue 17): a top-up, a plan change, the wallet's alerts and an invoice's
 * dispute. The same words as the server's refusals (app/.server/domains/billing/payments.ts and settings.ts;
 * tests/integration/billing-page.test.ts checks they agree), so the browser says what the server would.
 */

/** M-Pesa takes whole shillings from KES 10 up to KES 250,000 a transaction. */
export const TOPUP_LIMITS_KES = { min: 10, max: 250_000 } as const;
export const TOPUP_PRESETS_KES = [1_000, 2_500, 5_000, 10_000] as const;
export const TOPUP_DEFAULT_KES = 1_000;
export const TOPUP_METHODS = ["mpesa", "card", "bank"] as const;
export type TopupMethod = (typeof TOPUP_METHODS)[number];
export const TOPUP_METHOD_WORDS: Record<TopupMethod, string> = { mpesa: "M-Pesa", card: "Card", bank: "Bank transfer" };

export const DISPUTE_REASON_MIN = 10;
export const DISPUTE_REASON_LIMIT = 1000;

export const BILLING_MESSAGES = {
  amount: "Enter a whole number of shillings from KES 10 to KES 250,000.",
  bounds: "At least KES 10, at most KES 250,000 per M-Pesa payment.",
  phone: "Enter a Safaricom M-Pesa number, such as 0712 345 678.",
  method: "Choose M-Pesa, card or bank transfer.",
  plan: "Choose a plan.",
  reasonShort: "Say what is wrong with the invoice (at least 10 characters).",
  reasonLong: `Keep the reason under ${DISPUTE_REASON_LIMIT} characters.`,
} as const;

/** A top-up amount as typed ("1,000", "2500"): whole shillings within the limits, or null. */
export function topupAmountKes(text: string): number | null {
  const plain = text.trim().replace(/,/g, "");
  if (!/^\d{1,7}(\.0{1,2})?$/.test(plain)) return null;
  const amount = Number(plain);
  return amount >= TOPUP_LIMITS_KES.min && amount <= TOPUP_LIMITS_KES.max ? amount : null;
}

export const TopupSchema = z
  .object({
    amount: z.string({ error: BILLING_MESSAGES.amount }).check(z.maxLength(20, { error: BILLING_MESSAGES.amount })),
    method: z.optional(z.enum(TOPUP_METHODS, { error: BILLING_MESSAGES.method })),
    phone: z.optional(z.string().check(z.trim(), z.maxLength(32, { error: BILLING_MESSAGES.phone }))),
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
    .string({ error: BILLING_MESSAGES.plan })
    .check(z.regex(/^(starter|growth|enterprise)\/(prepaid|postpaid)$/, { error: BILLING_MESSAGES.plan })),
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
    .string({ error: BILLING_MESSAGES.reasonShort })
    .check(
      z.trim(),
      z.minLength(DISPUTE_REASON_MIN, { error: BILLING_MESSAGES.reasonShort }),
      z.maxLength(DISPUTE_REASON_LIMIT, { error: BILLING_MESSAGES.reasonLong }),
    ),
});
