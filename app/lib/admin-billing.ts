/** The admin console's Billing tab: what its pages and its server code share (no server imports here). */

/** The figures' periods (Nairobi months); the invoice table is not limited by them. */
export const BILLING_PERIODS = {
  month: "This month",
  "last-month": "Last month",
  "12m": "Last 12 months",
  all: "All time",
} as const;
export type BillingPeriod = keyof typeof BILLING_PERIODS;

export const RECONCILE_NOTE_MAX = 500;
export const RESOLUTION_NOTE_MAX = 1000;
export const ADJUSTMENT_REASON_MAX = 500;
