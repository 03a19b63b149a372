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

const METHOD_WORDS: Record<string, string> = { mpesa: "M-Pesa", c2b: "M-Pesa paybill", card: "Card", bank: "Bank transfer" };

/** How a console invoice row was paid, the same on the page and in its export: a method, "Wallet", "Credit note", or null. */
export function invoicePaymentWords(row: { paymentMethod: string | null; status: string; kind: string }): string | null {
  if (row.paymentMethod) return METHOD_WORDS[row.paymentMethod] ?? row.paymentMethod;
  if (row.kind === "credit_note") return "Credit note";
  return row.status === "paid" ? "Wallet" : null;
}

/** A console row's status for the export: as stored, or the credit note's story ("Partly credited", "Paid · credit note"). */
export function adminInvoiceStatusWords(row: { status: string; creditedCents: number }): string {
  if (row.creditedCents > 0 && (row.status === "pending" || row.status === "overdue")) return "Partly credited";
  if (row.creditedCents > 0 && row.status === "paid") return "Paid · credit note";
  return row.status;
}
