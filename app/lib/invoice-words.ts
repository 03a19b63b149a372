import { m } from "~/paraglide/messages";
import { getLocale } from "~/paraglide/runtime";
import { dateTimeFormat, intlLocale } from "./intl";

/**
 * An invoice's stored descriptions (its own and its lines') in the reader's language (issue 43).
 * Invoices keep what they said when issued, in English (KRA's record, the API and exports read them
 * so); the pages and PDFs show the words Jumbe wrote in the reader's language. A description Jumbe
 * did not write this way (a credit note's reason, an administrator's line) is shown as stored.
 */
const FIXED: Record<string, () => string> = {
  "Wallet top-up": () => m.documents_kind_topup(),
  "Payment on account": () => m.documents_line_payment_on_account(),
  "Wallet top-up by bank transfer": () => m.documents_line_topup_by_bank_transfer(),
  "Payment on account by bank transfer": () => m.documents_line_on_account_by_bank_transfer(),
};

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
// cycle.ts: "Growth plan, October 2026"; "Messages beyond the 10,000 included (12,345 sent)".
const PLAN_MONTH = new RegExp(`^(\\w+) plan, (${MONTHS.join("|")}) (\\d{4})$`);
const OVERAGE = /^Messages beyond the ([\d,]+) included \(([\d,]+) sent\)$/;

const count = (digits: string) => Number(digits.replaceAll(",", "")).toLocaleString(intlLocale(getLocale()));

export function invoiceWords(description: string): string {
  const fixed = FIXED[description];
  if (fixed) return fixed();
  const plan = PLAN_MONTH.exec(description);
  if (plan) {
    const month = new Date(Date.UTC(Number(plan[3]), MONTHS.indexOf(plan[2]!), 15));
    const words = dateTimeFormat(intlLocale(getLocale()), { month: "long", year: "numeric", timeZone: "UTC" }).format(month);
    return m.documents_line_plan_month({ plan: plan[1]!, month: words });
  }
  const overage = OVERAGE.exec(description);
  if (overage) return m.documents_line_overage({ included: count(overage[1]!), used: count(overage[2]!) });
  return description;
}

/** A line's unit as stored ("top-up", "month", "message", "credit"), in the reader's language (issue 74); another as stored. */
export function unitWords(unit: string): string {
  switch (unit) {
    case "top-up":
      return m.documents_unit_topup();
    case "month":
      return m.documents_unit_month();
    case "message":
      return m.documents_unit_message();
    case "credit":
      return m.documents_unit_credit();
    default:
      return unit;
  }
}
