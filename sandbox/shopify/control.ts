import { randomBytes } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { FAULTS, isFault, MAGIC_VALUES } from "../faults";
import type { ShopifyContext } from "./context";
import { checkoutPayload, emit, emitPrivacy, fulfillmentPayload, orderPayload, PRIVACY_TOPICS, shopPayload } from "./events";
import type { Address, Checkout, LineItem, Order, Person, Shop } from "./state";
import { DELIVERIES, type Delivery, type WebhookRecord } from "./webhooks";
import { addProducts, changeProduct, deleteProduct, ProductSpecError } from "./products";

type Json = Record<string, unknown>;

export const DEFAULT_LINE_ITEMS: LineItem[] = [{ title: "Kikoy beach towel", quantity: 2, price: "1250.00" }];

export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

function personOf(value: unknown): Person | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Json;
  const person: Person = {
    first_name: text(v.first_name),
    last_name: text(v.last_name),
    phone: text(v.phone) ?? null,
    email: text(v.email) ?? null,
  };
  return person.first_name || person.last_name || person.phone || person.email ? person : null;
}

function addressOf(value: unknown): Address | null {
  const person = personOf(value);
  if (!person) return null;
  const v = value as Json;
  return {
    ...person,
    address1: text(v.address1) ?? "Moi Avenue 12",
    city: text(v.city) ?? "Nairobi",
    country: "Kenya",
    country_code: "KE",
  };
}

function lineItemsOf(value: unknown): LineItem[] {
  if (!Array.isArray(value) || !value.length) return DEFAULT_LINE_ITEMS.map((i) => ({ ...i }));
  return value.map((raw) => {
    const item = (raw ?? {}) as Json;
    const quantity = Number(item.quantity ?? 1);
    const price = Number(item.price ?? 0);
    if (!text(item.title) || !Number.isInteger(quantity) || quantity < 1 || !Number.isFinite(price) || price < 0)
      throw new ControlError(400, "Each line item needs a title, a whole quantity of 1 or more and a price.");
    return { title: text(item.title)!, quantity, price: price.toFixed(2) };
  });
}

export function deliveryOf(value: unknown): Delivery {
  if (value === undefined || value === "") return "normal";
  if (!DELIVERIES.includes(value as Delivery)) throw new ControlError(400, `delivery must be one of ${DELIVERIES.join(", ")}.`);
  return value as Delivery;
}

function shopOr404(ctx: ShopifyContext, domain: string): Shop {
  const shop = ctx.state.shop(domain);
  if (!shop) throw new ControlError(404, `No test shop ${domain}: a test shop is <name>.myshopify.com.`);
  return shop;
}

function customerOf(ctx: ShopifyContext, input: Json) {
  const person = personOf(input.customer);
  return person ? { id: ctx.state.newId(), ...person } : null;
}

/** An order of the shop from its spec (the phone, the customer, the addresses, the lines), numbered `number`. */
function newOrder(ctx: ShopifyContext, shop: Shop, input: Json, number: number): Order {
  const at = ctx.options.now();
  const customer = customerOf(ctx, input);
  return {
    id: ctx.state.newId(),
    shop: shop.domain,
    number,
    email: text(input.email) ?? customer?.email ?? null,
    phone: text(input.phone) ?? null,
    customer,
    shippingAddress: addressOf(input.shipping_address),
    billingAddress: addressOf(input.billing_address),
    lineItems: lineItemsOf(input.line_items),
    createdAt: at,
    updatedAt: at,
    fulfillments: [],
    financialStatus: financialStatusInput(input.financial_status),
  };
}

/** A manual payment method (cash on delivery) leaves the order `pending`; any other is paid at checkout. */
function financialStatusInput(value: unknown): "pending" | "paid" {
  if (value === undefined || value === null || value === "" || value === "paid") return "paid";
  if (value === "pending") return "pending";
  throw new ControlError(400, "financial_status must be pending or paid.");
}

/** An order as a customer's purchase makes it: `orders/create`, and `orders/paid` unless it waits for a manual payment. */
export function createOrder(ctx: ShopifyContext, domain: string, input: Json) {
  const shop = shopOr404(ctx, domain);
  const delivery = deliveryOf(input.delivery);
  const order = newOrder(ctx, shop, input, ctx.state.nextOrderNumber(shop.domain));
  ctx.state.orders.set(order.id, order);
  ctx.state.changed();
  const payload = orderPayload(shop, order);
  const paid = order.financialStatus === "paid" ? emit(ctx, shop, "orders/paid", payload, delivery) : [];
  const webhooks = [...emit(ctx, shop, "orders/create", payload, delivery), ...paid];
  return { order: payload, webhooks };
}

/** At most this many orders an import call. */
export const MAX_IMPORTED_ORDERS = 1000;

/**
 * Orders the merchant already has, added in bulk (a store migration, an import app, or a benchmark's
 * shop): each spec as `createOrder` takes it, stored in the shop and numbered in turn, and no webhook
 * sent (the caller delivers what it needs). Answers each order's `orders/create` payload.
 */
export function importOrders(ctx: ShopifyContext, domain: string, input: Json) {
  const shop = shopOr404(ctx, domain);
  const specs = input.orders;
  if (!Array.isArray(specs) || specs.length < 1 || specs.length > MAX_IMPORTED_ORDERS)
    throw new ControlError(400, `orders must be a list of 1 to ${MAX_IMPORTED_ORDERS} order specs.`);
  const first = ctx.state.nextOrderNumber(shop.domain);
  const orders = specs.map((spec, i) => newOrder(ctx, shop, spec && typeof spec === "object" ? (spec as Json) : {}, first + i));
  for (const order of orders) ctx.state.orders.set(order.id, order);
  ctx.state.changed();
  return { orders: orders.map((order) => orderPayload(shop, order)), webhooks: [] };
}

/** A fulfilment with tracking: `fulfillments/create` and `orders/fulfilled`. */
export function createFulfillment(ctx: ShopifyContext, orderId: number, input: Json) {
  const order = ctx.state.orders.get(orderId);
  if (!order) throw new ControlError(404, `No order ${orderId}.`);
  const shop = shopOr404(ctx, order.shop);
  const at = ctx.options.now();
  const trackingNumber = text(input.tracking_number) ?? `KE${randomBytes(4).toString("hex").toUpperCase()}`;
  const fulfillment = {
    id: ctx.state.newId(),
    orderId,
    sequence: order.fulfillments.length + 1,
    trackingCompany: text(input.tracking_company) ?? "G4S Kenya",
    trackingNumber,
    trackingUrl: text(input.tracking_url) ?? `https://track.example.co.ke/${trackingNumber}`,
    shipmentStatus: null,
    createdAt: at,
    updatedAt: at,
  };
  const delivery = deliveryOf(input.delivery);
  order.fulfillments.push(fulfillment);
  order.updatedAt = at;
  ctx.state.changed();
  const webhooks = [
    ...emit(ctx, shop, "fulfillments/create", fulfillmentPayload(shop, order, fulfillment), delivery),
    ...emit(ctx, shop, "orders/fulfilled", orderPayload(shop, order), delivery),
  ];
  return { fulfillment: fulfillmentPayload(shop, order, fulfillment), webhooks };
}

const SHIPMENT_STATUSES = ["label_printed", "confirmed", "in_transit", "out_for_delivery", "attempted_delivery", "delivered", "failure"];

/** A carrier's update of a fulfilment: `fulfillments/update`. */
export function updateFulfillment(ctx: ShopifyContext, fulfillmentId: number, input: Json) {
  const found = ctx.state.findFulfillment(fulfillmentId);
  if (!found) throw new ControlError(404, `No fulfillment ${fulfillmentId}.`);
  const status = text(input.shipment_status) ?? "in_transit";
  if (!SHIPMENT_STATUSES.includes(status)) throw new ControlError(400, `shipment_status must be one of ${SHIPMENT_STATUSES.join(", ")}.`);
  const delivery = deliveryOf(input.delivery);
  found.fulfillment.shipmentStatus = status;
  found.fulfillment.updatedAt = ctx.options.now();
  ctx.state.changed();
  const shop = shopOr404(ctx, found.order.shop);
  const payload = fulfillmentPayload(shop, found.order, found.fulfillment);
  return { fulfillment: payload, webhooks: emit(ctx, shop, "fulfillments/update", payload, delivery) };
}

/** A checkout a customer starts: `checkouts/create` (left without `completed_at`, it is abandoned). */
export function createCheckout(ctx: ShopifyContext, domain: string, input: Json) {
  const shop = shopOr404(ctx, domain);
  const at = ctx.options.now();
  const customer = customerOf(ctx, input);
  const checkout: Checkout = {
    id: ctx.state.newId(),
    token: randomBytes(16).toString("hex"),
    shop: shop.domain,
    email: text(input.email) ?? customer?.email ?? null,
    phone: text(input.phone) ?? null,
    customer,
    shippingAddress: addressOf(input.shipping_address),
    billingAddress: addressOf(input.billing_address),
    lineItems: lineItemsOf(input.line_items),
    createdAt: at,
    updatedAt: at,
    completedAt: null,
  };
  const delivery = deliveryOf(input.delivery);
  ctx.state.checkouts.set(checkout.token, checkout);
  ctx.state.changed();
  const payload = checkoutPayload(shop, checkout);
  return { checkout: payload, webhooks: emit(ctx, shop, "checkouts/create", payload, delivery) };
}

/** A checkout changed (a phone added, or completed): `checkouts/update`. */
export function updateCheckout(ctx: ShopifyContext, token: string, input: Json) {
  const checkout = ctx.state.checkouts.get(token);
  if (!checkout) throw new ControlError(404, `No checkout ${token}.`);
  const delivery = deliveryOf(input.delivery);
  if (text(input.phone)) checkout.phone = text(input.phone)!;
  if (text(input.email)) checkout.email = text(input.email)!;
  if (input.shipping_address) checkout.shippingAddress = addressOf(input.shipping_address);
  if (input.completed === true) checkout.completedAt = ctx.options.now();
  checkout.updatedAt = ctx.options.now();
  ctx.state.changed();
  const shop = shopOr404(ctx, checkout.shop);
  const payload = checkoutPayload(shop, checkout);
  return { checkout: payload, webhooks: emit(ctx, shop, "checkouts/update", payload, delivery) };
}

/** The merchant removes the app: `app/uninstalled`, then its token and subscriptions are gone. */
export function uninstall(ctx: ShopifyContext, domain: string, input: Json = {}) {
  const shop = shopOr404(ctx, domain);
  const webhooks = emit(ctx, shop, "app/uninstalled", shopPayload(shop), deliveryOf(input.delivery));
  for (const s of ctx.state.subscriptionsOf(shop.domain, ctx.options.clientId)) ctx.state.subscriptions.delete(s.id);
  ctx.state.grants.revokeAccount(shop.domain, ctx.options.clientId);
  ctx.state.changed();
  return { webhooks };
}

/**
 * A privacy request as Shopify sends it to the app's compliance address: a customer's data request
 * (`customer` and `orders_requested`), a customer's redaction (`orders_to_redact`), or the shop's
 * redaction (48 hours after the app was removed). The customer is given (`id`, `email`, `phone`) or
 * taken from the shop's orders by `phone`; the orders are the customer's orders in the shop.
 */
export function privacyRequest(ctx: ShopifyContext, domain: string, topic: string, input: Json = {}) {
  const shop = shopOr404(ctx, domain);
  if (!(PRIVACY_TOPICS as readonly string[]).includes(topic))
    throw new ControlError(400, `topic must be one of ${PRIVACY_TOPICS.join(", ")}.`);
  if (!ctx.options.complianceAddress)
    throw new ControlError(409, "The app's configuration has no compliance webhook address (compliance_topics).");
  const delivery = deliveryOf(input.delivery);
  if (topic === "shop/redact") return { webhooks: emitPrivacy(ctx, shop, topic, { shop_id: shop.id, shop_domain: shop.domain }, delivery) };
  const given = personOf(input.customer);
  const orders = ctx.state
    .ordersOf(shop.domain)
    .filter(
      (o) =>
        given &&
        ((given.phone && (o.customer?.phone === given.phone || o.phone === given.phone)) || (given.email && o.email === given.email)),
    );
  const known = orders.find((o) => o.customer)?.customer;
  const rawId = (input.customer as Json | undefined)?.id;
  const customer = {
    id: typeof rawId === "number" ? rawId : (known?.id ?? ctx.state.newId()),
    email: given?.email ?? known?.email ?? null,
    phone: given?.phone ?? known?.phone ?? null,
  };
  const ids = orders.map((o) => o.id);
  const payload =
    topic === "customers/data_request"
      ? { shop_id: shop.id, shop_domain: shop.domain, orders_requested: ids, customer, data_request: { id: ctx.state.newId() } }
      : { shop_id: shop.id, shop_domain: shop.domain, customer, orders_to_redact: ids };
  return { webhooks: emitPrivacy(ctx, shop, topic, payload, delivery), request: payload };
}

export function queueFault(ctx: ShopifyContext, fault: unknown, times: unknown) {
  const count = times === undefined || times === "" ? 1 : Number(times);
  if (!isFault(fault) || !Number.isInteger(count) || count < 1 || count > 100) return false;
  ctx.faults.add(fault, count);
  return true;
}

export function shopView(ctx: ShopifyContext, shop: Shop) {
  return {
    ...shop,
    installed: ctx.state.grants.liveAccess().some((t) => t.account === shop.domain),
    subscriptions: ctx.state
      .subscriptionsOf(shop.domain)
      .map((s) => ({ id: s.id, topic: s.topic, address: s.address, apiVersion: s.apiVersion })),
    orders: ctx.state.ordersOf(shop.domain).length,
    products: ctx.state.productsOf(shop.domain).length,
  };
}

/**
 * JSON control API for tests (gated by the sandbox token): what a shop's customers and staff do
 * (an order, a fulfilment with tracking and its updates, a checkout, removing the app), each
 * delivered as signed webhooks (`delivery`: normal, duplicate or bad_signature); the webhooks sent,
 * queued faults, the API calls received, reset.
 */
export function controlRouter(ctx: ShopifyContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(express.json({ limit: "256kb" }));
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number } | undefined)?.status;
    if (status && status >= 400 && status < 500)
      return void res.status(status === 413 ? 413 : 400).json({ message: "The body must be JSON (at most 256 KB)." });
    next(error);
  });
  router.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const body = (req: Request) => (req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {}) as Json;
  const act =
    (fn: (req: Request) => { webhooks: WebhookRecord[] } & Json, status = 201) =>
    (req: Request, res: Response) => {
      try {
        res.status(status).json(fn(req));
      } catch (error) {
        if (!(error instanceof ControlError)) throw error;
        res.status(error.status).json({ message: error.message });
      }
    };

  router.get("/shops", (_req, res) => void res.json({ shops: [...ctx.state.shops.values()].map((s) => shopView(ctx, s)) }));
  router.post(
    "/shops/:shop/orders",
    act((req) => createOrder(ctx, String(req.params.shop), body(req))),
  );
  // The shop's catalogue (decision 142): seeded products (products/create), a change, a deletion.
  const products = (fn: () => { webhooks: WebhookRecord[] } & Json) => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof ProductSpecError) throw new ControlError(400, error.message);
      throw error;
    }
  };
  const productOr404 = (id: number) => {
    const product = ctx.state.products.get(id);
    if (!product) throw new ControlError(404, `No product ${id}.`);
    return product;
  };
  router.post(
    "/shops/:shop/products",
    act((req) => products(() => addProducts(ctx, shopOr404(ctx, String(req.params.shop)), body(req).products))),
  );
  router.post(
    "/products/:id",
    act((req) => {
      const product = productOr404(Number(req.params.id));
      return products(() => changeProduct(ctx, shopOr404(ctx, product.shop), product, body(req)));
    }, 200),
  );
  router.delete(
    "/products/:id",
    act((req) => {
      const product = productOr404(Number(req.params.id));
      return deleteProduct(ctx, shopOr404(ctx, product.shop), product);
    }, 200),
  );
  router.post(
    "/shops/:shop/orders/import",
    act((req) => importOrders(ctx, String(req.params.shop), body(req))),
  );
  router.post(
    "/orders/:id/fulfillments",
    act((req) => createFulfillment(ctx, Number(req.params.id), body(req))),
  );
  router.post(
    "/fulfillments/:id/update",
    act((req) => updateFulfillment(ctx, Number(req.params.id), body(req)), 200),
  );
  router.post(
    "/shops/:shop/checkouts",
    act((req) => createCheckout(ctx, String(req.params.shop), body(req))),
  );
  router.post(
    "/checkouts/:token/update",
    act((req) => updateCheckout(ctx, String(req.params.token), body(req)), 200),
  );
  router.post(
    "/shops/:shop/uninstall",
    act((req) => uninstall(ctx, String(req.params.shop), body(req)), 200),
  );

  router.post(
    "/shops/:shop/customers/data_request",
    act((req) => privacyRequest(ctx, String(req.params.shop), "customers/data_request", body(req)), 200),
  );
  router.post(
    "/shops/:shop/customers/redact",
    act((req) => privacyRequest(ctx, String(req.params.shop), "customers/redact", body(req)), 200),
  );
  router.post(
    "/shops/:shop/redact",
    act((req) => privacyRequest(ctx, String(req.params.shop), "shop/redact", body(req)), 200),
  );

  router.get("/webhooks", (_req, res) => void res.json({ webhooks: ctx.sender.list() }));
  router.post("/webhooks/flush", async (_req, res) => {
    await ctx.sender.flush();
    res.json({ webhooks: ctx.sender.list() });
  });
  router.post("/webhooks/:index/resend", (req, res) => {
    const index = String(req.params.index);
    const record = /^\d{1,9}$/.test(index) ? ctx.sender.resend(Number(index)) : undefined;
    if (!record) return void res.status(404).json({ message: `No webhook ${index}.` });
    res.json({ webhook: record });
  });

  router.get("/faults", (_req, res) => void res.json({ pending: ctx.faults.pending(), faults: FAULTS, magic: MAGIC_VALUES }));
  router.post("/faults", (req, res) => {
    const { fault, times } = body(req);
    if (!queueFault(ctx, fault, times))
      return void res.status(400).json({ message: `fault must be one of ${FAULTS.join(", ")}; times 1 to 100.` });
    res.json({ pending: ctx.faults.pending() });
  });
  router.get("/magic", (_req, res) => void res.json({ magic: MAGIC_VALUES, deliveries: DELIVERIES }));
  router.get("/calls", (_req, res) => void res.json({ calls: ctx.calls.list() }));
  router.post("/reset", (_req, res) => {
    ctx.state.reset();
    ctx.sender.reset();
    ctx.faults.clear();
    ctx.calls.reset();
    res.json({ ok: true });
  });
  router.use((_req, res) => void res.status(404).json({ message: "No such control endpoint." }));
  return router;
}
