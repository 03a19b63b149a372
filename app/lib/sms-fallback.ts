import { smsEstimate, SMS_PART_PRICE_CENTS } from "~/lib/sms-price";

/**
 * A campaign's SMS fallback (issue 77, decision 152): the bounds of "not delivered within", in
 * minutes (five minutes to a day), and the default the form offers.
 */
export const FALLBACK_AFTER_MIN = 5;
export const FALLBACK_AFTER_MAX = 24 * 60;
export const FALLBACK_AFTER_DEFAULT = 60;

/**
 * The automations whose outside-window templates can fall back to SMS (decision 159): the payment
 * request's template and each Shopify event's message.
 */
export const SMS_FALLBACK_AUTOMATIONS = [
  "payment_request",
  "shopify_order_created",
  "shopify_order_fulfilled",
  "shopify_checkout_abandoned",
] as const;
export type SmsFallbackAutomation = (typeof SMS_FALLBACK_AUTOMATIONS)[number];

export const FALLBACK_MODES = ["off", "own", "message"] as const;
export type FallbackMode = (typeof FALLBACK_MODES)[number];

/**
 * The worst case the Review shows: every recipient reached by SMS instead, each SMS as many parts as
 * the longest of the texts given (the previewed recipients' SMS, their values filled in).
 */
export function worstCaseSms(recipients: number, texts: string[]) {
  const parts = Math.max(1, ...texts.map((text) => smsEstimate(text).parts));
  return { parts, perSmsCents: parts * SMS_PART_PRICE_CENTS, totalCents: recipients * parts * SMS_PART_PRICE_CENTS };
}
