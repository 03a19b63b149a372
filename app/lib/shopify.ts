import { m } from "~/paraglide/messages";

/**
 * The Shopify connector's settings that the page and the server share (issue 45, decision 084).
 */

/** What a mapped template variable is filled with, from the order, fulfilment or checkout. */
export const SHOPIFY_FIELDS = ["customer_name", "order_number", "order_total", "tracking_link", "checkout_link"] as const;

/** The abandoned-cart delay a business may set, in minutes: 5 minutes to 7 days. */
export const DELAY_MINUTES = { min: 5, max: 7 * 24 * 60, default: 60 } as const;

/** A part of a template a store event cannot fill: a header with a file or a variable, a link button with a variable (issue 74). */
export type TemplateBlock = "header_text" | "header_media" | "button_link";

/** Why a template cannot answer a store event, in words (the page's notice and the save's refusal). */
export function templateBlockWords(block: TemplateBlock) {
  if (block === "header_media") return m.shopify_template_blocked_header_media();
  if (block === "header_text") return m.shopify_template_blocked_header_text();
  return m.shopify_template_blocked_button_link();
}
