// The limits and words of the billing forms, without zod: pages import them from here and load the
// schemas (billing.ts) only when a form is used (decision 061).
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** M-Pesa takes whole shillings from KES 10 up to KES 250,000 a transaction. */
export const TOPUP_LIMITS_KES = { min: 10, max: 250_000 } as const;

export const TOPUP_PRESETS_KES = [1_000, 2_500, 5_000, 10_000] as const;

export const TOPUP_DEFAULT_KES = 1_000;

export const TOPUP_METHODS = ["mpesa", "card", "bank"] as const;

export type TopupMethod = (typeof TOPUP_METHODS)[number];

/** Each method in words, read in the request's language (M-Pesa is M-Pesa in every one). */
export const TOPUP_METHOD_WORDS: Record<TopupMethod, string> = {
  mpesa: "M-Pesa",
  get card() {
    return m.validation_topup_method_card();
  },
  get bank() {
    return m.validation_topup_method_bank();
  },
};

export const DISPUTE_REASON_MIN = 10;

export const DISPUTE_REASON_LIMIT = 1000;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const BILLING_MESSAGES = {
  get amount() {
    return m.validation_topup_amount({ min: formatNumber(TOPUP_LIMITS_KES.min), max: formatNumber(TOPUP_LIMITS_KES.max) });
  },
  get bounds() {
    return m.validation_topup_bounds({ min: formatNumber(TOPUP_LIMITS_KES.min), max: formatNumber(TOPUP_LIMITS_KES.max) });
  },
  get phone() {
    return m.validation_topup_phone();
  },
  get method() {
    return m.validation_topup_method();
  },
  get plan() {
    return m.validation_plan();
  },
  get reasonShort() {
    return m.validation_dispute_reason_short({ min: DISPUTE_REASON_MIN });
  },
  // Written without grouping ("1000"), as it always was.
  get reasonLong() {
    return m.validation_dispute_reason_long({ max: DISPUTE_REASON_LIMIT });
  },
};

/** A top-up amount as typed ("1,000", "2500"): whole shillings within the limits, or null. */
export function topupAmountKes(text: string): number | null {
  const plain = text.trim().replace(/,/g, "");
  if (!/^\d{1,7}(\.0{1,2})?$/.test(plain)) return null;
  const amount = Number(plain);
  return amount >= TOPUP_LIMITS_KES.min && amount <= TOPUP_LIMITS_KES.max ? amount : null;
}
