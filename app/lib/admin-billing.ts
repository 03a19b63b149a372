import { m } from "~/paraglide/messages";

/** The admin console's Billing tab: what its pages and its server code share (no server imports here). */

/** The figures' periods (Nairobi months); the invoice table is not limited by them. Each name is read in the request's language. */
export const BILLING_PERIODS = {
  get month() {
    return m.admin_billing_period_month();
  },
  get "last-month"() {
    return m.admin_billing_period_last_month();
  },
  get "12m"() {
    return m.admin_billing_period_12m();
  },
  get all() {
    return m.admin_billing_period_all();
  },
} as const;
export type BillingPeriod = keyof typeof BILLING_PERIODS;

export const RECONCILE_NOTE_MAX = 500;
export const RESOLUTION_NOTE_MAX = 1000;
export const ADJUSTMENT_REASON_MAX = 500;

/** How a payment method reads (M-Pesa's are its own names, the same in every language). */
export function paymentMethodWords(method: string): string {
  switch (method) {
    case "mpesa":
      return "M-Pesa";
    case "c2b":
      return "M-Pesa paybill";
    case "card":
      return m.admin_billing_method_card();
    case "bank":
      return m.admin_billing_method_bank();
    default:
      return method;
  }
}

/** How a console invoice row was paid, the same on the page and in its export: a method, "Wallet", "Credit note", or null. */
export function invoicePaymentWords(row: { paymentMethod: string | null; status: string; kind: string }): string | null {
  if (row.paymentMethod) return paymentMethodWords(row.paymentMethod);
  if (row.kind === "credit_note") return m.admin_billing_paid_by_credit_note();
  return row.status === "paid" ? m.admin_billing_paid_by_wallet() : null;
}

/** An invoice's status as a word inside a sentence ("it was pending"): the stored status in English, in words elsewhere. */
export function invoiceStatusWords(status: string): string {
  switch (status) {
    case "paid":
      return m.admin_invoice_state_paid();
    case "pending":
      return m.admin_invoice_state_pending();
    case "overdue":
      return m.admin_invoice_state_overdue();
    case "disputed":
      return m.admin_invoice_state_disputed();
    case "void":
      return m.admin_invoice_state_void();
    default:
      return status;
  }
}
