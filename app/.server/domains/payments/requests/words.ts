import type { Locale } from "~/paraglide/runtime";
import { numberFormat } from "~/lib/intl";
import { m } from "~/paraglide/messages";
import type { MpesaShortcode } from "../shortcodes-access";

/** The customer's language for what the request says to them: their contact's, else English. */
export function customerLocale(language: string | null | undefined): Locale {
  return language === "sw" || language === "fr" ? language : "en";
}

/** KES amounts as the customer reads them ("1,250"; "1 250" in French). */
export function kes(amount: number, locale: Locale) {
  return numberFormat(locale === "fr" ? "fr-FR" : "en-KE", { maximumFractionDigits: 0 }).format(amount);
}

/** How to pay the shortcode by hand: the paybill, or the till. */
export function howToPay(shortcode: Pick<MpesaShortcode, "kind" | "businessShortCode" | "tillNumber">, locale: Locale) {
  return shortcode.kind === "till"
    ? m.payreq_how_till({ number: shortcode.tillNumber || shortcode.businessShortCode }, { locale })
    : m.payreq_how_paybill({ number: shortcode.businessShortCode }, { locale });
}

/** What an STK ResultCode means to the customer who paid, in their language. */
export function failureWords(resultCode: number | null, desc: string, amount: number, locale: Locale) {
  const options = { locale };
  switch (resultCode) {
    case 1:
      return m.payreq_failed_insufficient({ amount: kes(amount, locale) }, options);
    case 1031:
    case 1032:
      return m.payreq_failed_cancelled({}, options);
    case 1037:
    case 1019:
      return m.payreq_failed_timeout({}, options);
    case 2001:
      return m.payreq_failed_wrong_pin({}, options);
    default:
      return m.payreq_failed_other({ reason: desc || String(resultCode ?? "") }, options);
  }
}

/** The button ids of a request's message: what a tap names. */
export const buttonId = (requestId: string, action: "pay" | "other" | "retry") => `payreq:${requestId}:${action}`;
const BUTTON = /^payreq:([0-9a-f-]{36}):(pay|other|retry)$/;
export function parseButtonId(id: unknown): { requestId: string; action: "pay" | "other" | "retry" } | null {
  const match = typeof id === "string" ? BUTTON.exec(id) : null;
  return match ? { requestId: match[1]!, action: match[2] as "pay" | "other" | "retry" } : null;
}
