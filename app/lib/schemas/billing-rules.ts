// The limits and words of the billing forms, without zod: pages import them from here and load the
// schemas (billing.ts) only when a form is used (decision 061).

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
