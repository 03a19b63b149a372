import { m } from "~/paraglide/messages";

/** The Shopify settings page's words for its event types, fields and outcomes (decision 084). */

export function eventWords(eventType: string) {
  switch (eventType) {
    case "order_created":
      return m.shopify_event_order_created();
    case "order_fulfilled":
      return m.shopify_event_order_fulfilled();
    default:
      return m.shopify_event_checkout_abandoned();
  }
}

export function eventHelp(eventType: string) {
  switch (eventType) {
    case "order_created":
      return m.shopify_event_order_created_help();
    case "order_fulfilled":
      return m.shopify_event_order_fulfilled_help();
    default:
      return m.shopify_event_checkout_abandoned_help();
  }
}

export function fieldWords(field: string) {
  switch (field) {
    case "customer_name":
      return m.shopify_field_customer_name();
    case "order_number":
      return m.shopify_field_order_number();
    case "order_total":
      return m.shopify_field_order_total();
    case "tracking_link":
      return m.shopify_field_tracking_link();
    default:
      return m.shopify_field_checkout_link();
  }
}

export const STATUS_TONE = {
  sent: "success",
  skipped: "warning",
  waiting: "info",
  cancelled: "neutral",
  ignored: "neutral",
  received: "info",
} as const;

export function statusWords(status: string) {
  switch (status) {
    case "sent":
      return m.shopify_status_sent();
    case "skipped":
      return m.shopify_status_skipped();
    case "waiting":
      return m.shopify_status_waiting();
    case "cancelled":
      return m.shopify_status_cancelled();
    case "ignored":
      return m.shopify_status_ignored();
    default:
      return m.shopify_status_received();
  }
}
