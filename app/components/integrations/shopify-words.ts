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
  done: "success",
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
    case "done":
      return m.shopify_status_done();
    default:
      return m.shopify_status_received();
  }
}

/** The privacy topics' names (decision 108); null for the others (their event type names them). */
export function privacyTopicWords(topic: string) {
  switch (topic) {
    case "customers/data_request":
      return m.shopify_topic_customers_data_request();
    case "customers/redact":
      return m.shopify_topic_customers_redact();
    case "shop/redact":
      return m.shopify_topic_shop_redact();
    // The catalogue's events (decision 142).
    case "products/create":
      return m.shopify_topic_products_create();
    case "products/update":
      return m.shopify_topic_products_update();
    case "products/delete":
      return m.shopify_topic_products_delete();
    default:
      return null;
  }
}
