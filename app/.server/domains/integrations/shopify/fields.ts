import { shopifyCustomerPhone } from "../../../infrastructure/clients/shopify";
import { SHOPIFY_FIELDS, type SHOPIFY_EVENT_TYPES } from "../../../infrastructure/db/schema";
import { formatKes } from "~/lib/invoice";

/**
 * What Jumbe reads from Shopify's webhook payloads (an order, a fulfilment, a checkout): the event
 * type a topic stands for, the customer's phone, and each field a template variable can be filled with.
 * Pure functions of the payload.
 */

export type ShopifyEventType = (typeof SHOPIFY_EVENT_TYPES)[number];
export type ShopifyField = (typeof SHOPIFY_FIELDS)[number];

/** The event type each subscribed topic is; app/uninstalled and the rest have none. */
export function eventTypeOf(topic: string): ShopifyEventType | null {
  switch (topic) {
    case "orders/create":
      return "order_created";
    case "fulfillments/create":
    case "fulfillments/update":
      return "order_fulfilled";
    case "checkouts/create":
    case "checkouts/update":
      return "checkout_abandoned";
    default:
      return null;
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : null);

/** The customer's Kenyan mobile in E.164, from the order, the customer, or the addresses; null when none reads as one. */
export const customerPhoneOf = (payload: unknown) => shopifyCustomerPhone(payload);

function nameIn(value: unknown) {
  if (!isObject(value)) return null;
  const name = [text(value.first_name), text(value.last_name)].filter(Boolean).join(" ");
  return name || null;
}

/** The customer's name: the customer's, else the shipping (a fulfilment's destination) or billing address's. */
export function customerNameOf(payload: Json) {
  return nameIn(payload.customer) ?? nameIn(payload.shipping_address) ?? nameIn(payload.destination) ?? nameIn(payload.billing_address);
}

/** The order's name as the shop shows it (#1001); a fulfilment's name is the order's with `.1`. */
export function orderNumberOf(payload: Json) {
  const name = text(payload.name);
  if (name) return name.replace(/\.\d+$/, "");
  return typeof payload.order_number === "number" ? `#${payload.order_number}` : null;
}

/** The total in KES, formatted ("KES 2,500.00"); null when the payload has none or another currency. */
export function orderTotalOf(payload: Json) {
  const total = Number(text(payload.total_price) ?? NaN);
  const currency = text(payload.currency) ?? "KES";
  if (!Number.isFinite(total) || currency !== "KES") return null;
  return formatKes(Math.round(total * 100));
}

function httpsUrl(value: unknown) {
  const url = text(value);
  return url && /^https?:\/\//.test(url) ? url : null;
}

/** The fulfilment's tracking link (its own, or the order's latest fulfilment's). */
export function trackingLinkOf(payload: Json) {
  const own = httpsUrl(payload.tracking_url) ?? (Array.isArray(payload.tracking_urls) ? httpsUrl(payload.tracking_urls[0]) : null);
  if (own) return own;
  const fulfillments = Array.isArray(payload.fulfillments) ? payload.fulfillments.filter(isObject) : [];
  const last = fulfillments.at(-1);
  return last ? httpsUrl(last.tracking_url) : null;
}

/** The checkout's recovery link (abandoned_checkout_url). */
export const checkoutLinkOf = (payload: Json) => httpsUrl(payload.abandoned_checkout_url);

/** Each field's value in the payload, or null. */
export function fieldValue(field: ShopifyField, payload: Json): string | null {
  switch (field) {
    case "customer_name":
      return customerNameOf(payload);
    case "order_number":
      return orderNumberOf(payload);
    case "order_total":
      return orderTotalOf(payload);
    case "tracking_link":
      return trackingLinkOf(payload);
    case "checkout_link":
      return checkoutLinkOf(payload);
  }
}

/** For people: the order's name, or the checkout's token shortened. */
export function referenceOf(topic: string, payload: Json) {
  if (topic.startsWith("checkouts/")) {
    const token = text(payload.token);
    return token ? `checkout ${token.slice(0, 8)}` : null;
  }
  return orderNumberOf(payload);
}

/** The fields offered for each event type's variables (all of them fit any, a missing one reads "-"). */
export const isShopifyField = (value: unknown): value is ShopifyField => SHOPIFY_FIELDS.includes(value as ShopifyField);

/** The default field for a body variable at this position, per event type: the ones that make sense first. */
export function defaultFields(eventType: ShopifyEventType, count: number): ShopifyField[] {
  const order: Record<ShopifyEventType, ShopifyField[]> = {
    order_created: ["customer_name", "order_number", "order_total"],
    order_fulfilled: ["customer_name", "order_number", "tracking_link"],
    checkout_abandoned: ["customer_name", "checkout_link", "order_total"],
  };
  const preferred = order[eventType];
  return Array.from({ length: count }, (_, i) => preferred[i] ?? preferred[preferred.length - 1]!);
}

const resourceId = (value: unknown) =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0
    ? String(value)
    : typeof value === "string" && /^[1-9]\d{0,19}$/.test(value)
      ? value
      : null;

/**
 * What identifies a delivery, from what Shopify signed (issue 71, decision 098): the shop, the topic,
 * the resource's id (a checkout's token when it has no id) and its `updated_at`. Shopify's own
 * duplicate deliveries carry the same body, so the same key; a signed body posted again under a new
 * X-Shopify-Event-Id (which nothing signs) is the same key too. A body with neither id nor token is
 * keyed by its bytes' digest.
 */
export function deliveryKeyOf(shop: string, topic: string, payload: Json, digest: string) {
  const id = resourceId(payload.id) ?? (text(payload.token)?.slice(0, 100) || null);
  if (!id) return `${shop} ${topic} sha256:${digest}`;
  const updatedAt = text(payload.updated_at)?.slice(0, 40) ?? "-";
  return `${shop} ${topic} ${id} ${updatedAt}`;
}

/**
 * The Admin API's global id of what an event is about, to ask the shop it claims to come from
 * whether it knows it (GraphQL `nodes`): the order, the fulfilment, the abandoned checkout. Null when
 * the payload has no usable id (then the shop cannot confirm it).
 */
export function resourceGidOf(topic: string, payload: Json): string | null {
  const id = resourceId(payload.id);
  if (!id) return null;
  if (topic.startsWith("orders/")) return `gid://shopify/Order/${id}`;
  if (topic.startsWith("fulfillments/")) return `gid://shopify/Fulfillment/${id}`;
  if (topic.startsWith("checkouts/")) return `gid://shopify/AbandonedCheckout/${id}`;
  return null;
}

/**
 * The shop a body names itself (app/uninstalled's shop object carries `myshopify_domain`, the privacy
 * topics' bodies `shop_domain`); null when it names none.
 */
export const bodyShopOf = (payload: Json) => (text(payload.myshopify_domain) ?? text(payload.shop_domain))?.toLowerCase() ?? null;
