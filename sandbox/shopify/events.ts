import { randomBytes } from "node:crypto";
import type { ShopifyContext } from "./context";
import {
  financialStatusOf,
  type Address,
  type Checkout,
  type Fulfillment,
  type LineItem,
  type Order,
  type Person,
  type Shop,
} from "./state";
import type { Delivery, WebhookRecord } from "./webhooks";

/** The webhook topics the sandbox sends, and the scope each needs (none: app/uninstalled). */
export const TOPICS: Readonly<Record<string, string[]>> = {
  "orders/create": ["read_orders"],
  "orders/paid": ["read_orders"],
  "orders/updated": ["read_orders"],
  "orders/fulfilled": ["read_orders"],
  "fulfillments/create": ["read_orders", "read_fulfillments"],
  "fulfillments/update": ["read_orders", "read_fulfillments"],
  "checkouts/create": ["read_orders"],
  "checkouts/update": ["read_orders"],
  "products/create": ["read_products"],
  "products/update": ["read_products"],
  "products/delete": ["read_products"],
  "app/uninstalled": [],
};

/**
 * Shopify's mandatory privacy topics: sent to the compliance address of the app's configuration,
 * never subscribed per shop (webhookSubscriptionCreate refuses them as unknown topics, as Shopify does).
 */
export const PRIVACY_TOPICS = ["customers/data_request", "customers/redact", "shop/redact"] as const;

const iso = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
const money = (value: number) => value.toFixed(2);
const gid = (kind: string, id: number) => `gid://shopify/${kind}/${id}`;

function totalOf(items: LineItem[]) {
  return items.reduce((sum, item) => sum + Number(item.price) * item.quantity, 0);
}

function lineItemsView(items: LineItem[], idBase: number) {
  return items.map((item, i) => ({
    id: idBase + i,
    admin_graphql_api_id: gid("LineItem", idBase + i),
    title: item.title,
    name: item.title,
    quantity: item.quantity,
    price: item.price,
    sku: null,
    variant_id: null,
  }));
}

const addressView = (address: Address | null) =>
  address
    ? { first_name: null, last_name: null, address1: null, city: null, country: "Kenya", country_code: "KE", phone: null, ...address }
    : null;

const customerView = (customer: (Person & { id: number }) | null) =>
  customer
    ? {
        admin_graphql_api_id: gid("Customer", customer.id),
        email: null,
        first_name: null,
        last_name: null,
        phone: null,
        currency: "KES",
        ...customer,
      }
    : null;

export function orderPayload(shop: Shop, order: Order) {
  const total = totalOf(order.lineItems);
  const fulfilled = order.fulfillments.length > 0;
  return {
    id: order.id,
    admin_graphql_api_id: gid("Order", order.id),
    name: `#${order.number}`,
    order_number: order.number,
    number: order.number - 1000,
    email: order.email,
    contact_email: order.email,
    phone: order.phone,
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
    processed_at: iso(order.createdAt),
    currency: "KES",
    presentment_currency: "KES",
    subtotal_price: money(total),
    total_price: money(total),
    total_tax: "0.00",
    financial_status: financialStatusOf(order),
    fulfillment_status: fulfilled ? "fulfilled" : null,
    customer: customerView(order.customer),
    shipping_address: addressView(order.shippingAddress),
    billing_address: addressView(order.billingAddress),
    line_items: lineItemsView(order.lineItems, order.id * 10),
    fulfillments: order.fulfillments.map((f) => fulfillmentPayload(shop, order, f)),
    order_status_url: `https://${shop.domain}/orders/${order.id}/authenticate`,
  };
}

export function fulfillmentPayload(_shop: Shop, order: Order, fulfillment: Fulfillment) {
  return {
    id: fulfillment.id,
    admin_graphql_api_id: gid("Fulfillment", fulfillment.id),
    order_id: order.id,
    name: `#${order.number}.${fulfillment.sequence}`,
    status: "success",
    service: "manual",
    created_at: iso(fulfillment.createdAt),
    updated_at: iso(fulfillment.updatedAt),
    tracking_company: fulfillment.trackingCompany,
    tracking_number: fulfillment.trackingNumber,
    tracking_numbers: fulfillment.trackingNumber ? [fulfillment.trackingNumber] : [],
    tracking_url: fulfillment.trackingUrl,
    tracking_urls: fulfillment.trackingUrl ? [fulfillment.trackingUrl] : [],
    shipment_status: fulfillment.shipmentStatus,
    email: order.email,
    destination: addressView(order.shippingAddress),
    line_items: lineItemsView(order.lineItems, order.id * 10),
  };
}

export function checkoutPayload(shop: Shop, checkout: Checkout) {
  const total = totalOf(checkout.lineItems);
  return {
    id: checkout.id,
    token: checkout.token,
    cart_token: checkout.token.slice(0, 16),
    email: checkout.email,
    phone: checkout.phone,
    created_at: iso(checkout.createdAt),
    updated_at: iso(checkout.updatedAt),
    completed_at: checkout.completedAt === null ? null : iso(checkout.completedAt),
    currency: "KES",
    presentment_currency: "KES",
    subtotal_price: money(total),
    total_price: money(total),
    abandoned_checkout_url: `https://${shop.domain}/checkouts/${checkout.token}/recover`,
    customer: customerView(checkout.customer),
    shipping_address: addressView(checkout.shippingAddress),
    billing_address: addressView(checkout.billingAddress),
    line_items: checkout.lineItems.map((item, i) => ({
      ...lineItemsView([item], checkout.id * 10 + i)[0],
      key: randomBytes(8).toString("hex"),
    })),
  };
}

export function shopPayload(shop: Shop) {
  return {
    id: shop.id,
    name: shop.name,
    email: shop.email,
    domain: shop.domain,
    myshopify_domain: shop.domain,
    country_code: "KE",
    currency: "KES",
    iana_timezone: "Africa/Nairobi",
  };
}

/** Sends a topic's webhook to every subscription of the shop for it (each app's own secret signs). */
export function emit(ctx: ShopifyContext, shop: Shop, topic: string, payload: unknown, delivery: Delivery = "normal"): WebhookRecord[] {
  return ctx.state
    .subscriptionsOf(shop.domain)
    .filter((s) => s.topic === topic)
    .flatMap((s) =>
      ctx.sender.send({ topic, shop: shop.domain, subscriptionId: s.id, url: s.address, apiVersion: s.apiVersion, payload, delivery }),
    );
}

/** A privacy topic to the app's compliance address (one delivery, Shopify's headers and retries). */
export function emitPrivacy(
  ctx: ShopifyContext,
  shop: Shop,
  topic: string,
  payload: unknown,
  delivery: Delivery = "normal",
): WebhookRecord[] {
  const url = ctx.options.complianceAddress;
  if (!url) return [];
  return ctx.sender.send({ topic, shop: shop.domain, subscriptionId: 0, url, apiVersion: ctx.options.apiVersion, payload, delivery });
}
