/**
 * The Shopify connector's settings that the page and the server share (issue 45, decision 084).
 */

/** What a mapped template variable is filled with, from the order, fulfilment or checkout. */
export const SHOPIFY_FIELDS = ["customer_name", "order_number", "order_total", "tracking_link", "checkout_link"] as const;

/** The abandoned-cart delay a business may set, in minutes: 5 minutes to 7 days. */
export const DELAY_MINUTES = { min: 5, max: 7 * 24 * 60, default: 60 } as const;
