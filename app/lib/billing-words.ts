import { formatNumber } from "~/lib/dates";
import { dateTimeFormat, formatDateWords, intlLocale } from "~/lib/intl";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

/**
 * How /billing says its figures: plans and their prices, dates of billing periods, template
 * categories. Shared by server and browser (no server imports). Words are the request's (the
 * page's) language, read when called.
 */

/** "1 December 2026" from "2026-12-01" (a Nairobi calendar date), in the page's language; the text itself when it is not one. */
export function longDate(ymd: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!match) return ymd;
  const format = dateTimeFormat(intlLocale(), { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
  return formatDateWords(format, new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))));
}

/** "November 2026" from "2026-11", in the page's language; the text itself when it is not one. */
export function longMonth(ym: string): string {
  const match = /^(\d{4})-(\d{2})$/.exec(ym);
  if (!match) return ym;
  return dateTimeFormat(intlLocale(), { month: "long", year: "numeric", timeZone: "UTC" }).format(
    new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 15)),
  );
}

/** "Prepaid", "Postpaid": a billing type as a label (read when used). */
export const BILLING_TYPE_WORDS: Record<string, string> = {
  get prepaid() {
    return m.billing_type_prepaid();
  },
  get postpaid() {
    return m.billing_type_postpaid();
  },
};

/** "prepaid", "postpaid": a billing type inside a sentence; an unknown one as it is. */
export function billingTypeInline(billingType: string): string {
  if (billingType === "prepaid") return m.billing_type_prepaid_inline();
  if (billingType === "postpaid") return m.billing_type_postpaid_inline();
  return billingType;
}

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
  const price = formatKes(plan.messagePriceCents);
  if (plan.billingType === "prepaid")
    return plan.pricesIncludeVat ? m.billing_price_prepaid_vat_included({ price }) : m.billing_price_prepaid_plus_vat({ price });
  const words = { fee: formatKes(plan.monthlyFeeCents), included: formatNumber(plan.includedMessages), price };
  return plan.pricesIncludeVat ? m.billing_price_postpaid_vat_included(words) : m.billing_price_postpaid_plus_vat(words);
}

/** "Growth (postpaid)". */
export function planWords(name: string, billingType: string | null | undefined): string {
  return billingType ? m.billing_plan_with_type({ plan: name, type: billingTypeInline(billingType) }) : name;
}

/** A template category as a heading: "Marketing", "Utility"; unknown ones with their first letter raised. */
export function categoryWords(category: string): string {
  switch (category) {
    case "marketing":
      return m.billing_category_marketing();
    case "utility":
      return m.billing_category_utility();
    case "authentication":
      return m.billing_category_authentication();
    case "authentication_international":
      return m.billing_category_authentication_international();
    case "service":
      return m.billing_category_service();
    case "referral_conversion":
      return m.billing_category_referral_conversion();
    case "other":
      return m.billing_category_other();
  }
  return category.charAt(0).toUpperCase() + category.slice(1).replace(/_/g, " ");
}

/** "1,234 of 10,000 messages". */
export function usageWords(messages: number, limit: number): string {
  return m.billing_usage_of_limit({ used: formatNumber(messages), limit: formatNumber(limit) });
}

/** "KES 1,000" for whole shillings, "KES 1,000.50" otherwise: how a prompt's amount is said. */
export function kesWords(cents: number): string {
  return cents % 100 === 0 ? formatKes(cents).replace(/\.00$/, "") : formatKes(cents);
}
