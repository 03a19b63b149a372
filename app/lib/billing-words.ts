import { formatKes } from "~/lib/invoice";

/**
 * How /billing says its figures: plans and their prices, dates of billing periods, template
 * categories. Shared by server and browser (no server imports).
 */

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "1 December 2026" from "2026-12-01" (a Nairobi calendar date); the text itself when it is not one. */
export function longDate(ymd: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return ymd;
  return `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
}

export const BILLING_TYPE_WORDS: Record<string, string> = { prepaid: "Prepaid", postpaid: "Postpaid" };

export interface PlanPrice {
  billingType: string;
  monthlyFeeCents: number;
  includedMessages: number;
  messagePriceCents: number;
  messageLimit: number;
  pricesIncludeVat: boolean;
}

/** "KES 2.00 a message from the wallet" or "KES 9,000.00 a month with 10,000 messages, then KES 1.00 a message". */
export function planPriceWords(plan: PlanPrice): string {
  const vat = plan.pricesIncludeVat ? " (VAT included)" : " (plus VAT)";
  if (plan.billingType === "prepaid") return `${formatKes(plan.messagePriceCents)} a message from the wallet${vat}`;
  const included = plan.includedMessages.toLocaleString("en-US");
  return `${formatKes(plan.monthlyFeeCents)} a month with ${included} messages, then ${formatKes(plan.messagePriceCents)} a message${vat}`;
}

/** "Growth (postpaid)". */
export function planWords(name: string, billingType: string | null | undefined): string {
  return billingType ? `${name} (${billingType})` : name;
}

const CATEGORY_WORDS: Record<string, string> = {
  marketing: "Marketing",
  utility: "Utility",
  authentication: "Authentication",
  authentication_international: "Authentication (international)",
  service: "Service",
  referral_conversion: "Free entry point",
};

/** A template category as a heading: "Marketing", "Utility"; unknown ones with their first letter raised. */
export function categoryWords(category: string): string {
  return CATEGORY_WORDS[category] ?? category.charAt(0).toUpperCase() + category.slice(1).replace(/_/g, " ");
}

/** "1,234 of 10,000 messages". */
export function usageWords(messages: number, limit: number): string {
  return `${messages.toLocaleString("en-US")} of ${limit.toLocaleString("en-US")} messages`;
}

/** "KES 1,000" for whole shillings, "KES 1,000.50" otherwise: how a prompt's amount is said. */
export function kesWords(cents: number): string {
  return cents % 100 === 0 ? formatKes(cents).replace(/\.00$/, "") : formatKes(cents);
}
