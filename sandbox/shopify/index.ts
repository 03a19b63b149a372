import { DEMO_SHOPIFY_SHOP, demoShopifyToken } from "../demo-grants";
import { addSubscription } from "./subscriptions";
import { Router } from "express";
import { sandboxGate } from "../access";
import { CallLog, type CallRecord } from "../call-log";
import { FaultQueue, SlowAnswers, type Fault } from "../faults";
import { OAuthGrants } from "../oauth-grants";
import { adminRouter } from "./admin";
import { consoleRouter } from "./console";
import type { ResolvedOptions, ShopifyContext } from "./context";
import {
  createCheckout,
  createFulfillment,
  createOrder,
  controlRouter,
  privacyRequest,
  uninstall,
  updateCheckout,
  updateFulfillment,
} from "./control";
import { oauthRouter } from "./oauth";
import { ShopifyState, type Order } from "./state";
import { addProducts, changeProduct, deleteProduct } from "./products";
import { WebhookSender, type WebhookRecord } from "./webhooks";

export { installHmac, KNOWN_SCOPES } from "./oauth";
export { shopifyWebhookHmac, DELIVERIES, type Delivery, type WebhookRecord } from "./webhooks";
export { TOPICS, PRIVACY_TOPICS } from "./events";
export { MAGIC_VALUES, type Fault } from "../faults";

export interface ShopifySandboxOptions {
  /** The app's client id and secret (SHOPIFY_CLIENT_ID, SHOPIFY_CLIENT_SECRET): the secret signs the install redirect and the webhooks. */
  clientId: string;
  clientSecret: string;
  /** The app's name on the install page. Default "Jumbe". */
  appName?: string;
  /** Where the router is mounted. Default "/sandbox/shopify". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console and control API ask for it when set (sandbox/access.ts). */
  controlToken?: string;
  secureCookie?: boolean;
  /** DATA_DIR/sandbox/shopify.json: installs, subscriptions, orders survive a restart. Unset: memory only. */
  statePath?: string;
  /** The Admin API version. Default "2025-10". */
  apiVersion?: string;
  /** Before a webhook's first attempt, doubling between retries. Default 1000; tests 0. */
  webhookDelayMs?: number;
  /** Attempts per webhook until the receiver answers 2xx. Default 5. */
  webhookAttempts?: number;
  /** How long a `magic-slow` answer waits. Default 30 s. */
  slowMs?: number;
  /**
   * The app configuration's compliance webhook address (`compliance_topics` in shopify.app.toml):
   * where customers/data_request, customers/redact and shop/redact go. Unset: the control API's
   * privacy requests answer 409, as an app without them cannot be listed.
   */
  complianceWebhookAddress?: string;
  /** The demo business's shop and install (sandbox/demo-grants.ts), its webhooks to this address; adopted at start. */
  demo?: { webhookAddress: string };
  now?: () => number;
}

type Json = Record<string, unknown>;

export interface ShopifySandbox {
  router: Router;
  close(): Promise<void>;
  createOrder(shop: string, input?: Json): { order: Json; webhooks: WebhookRecord[] };
  /** An order as the shop keeps it (its financial status, its sale transactions), for tests. */
  order(id: number): Order | undefined;
  /** Products added to a shop's catalogue (products/create each). */
  addProducts(shop: string, specs: Json[]): { products: Json[]; webhooks: WebhookRecord[] };
  /** A product changed (products/update). */
  changeProduct(id: number, spec: Json): { product: Json; webhooks: WebhookRecord[] };
  /** A product deleted (products/delete). */
  deleteProduct(id: number): { webhooks: WebhookRecord[] };
  /** The shop's currency (KES unless set). */
  setShopCurrency(shop: string, currency: string): void;
  createFulfillment(orderId: number, input?: Json): { fulfillment: Json; webhooks: WebhookRecord[] };
  updateFulfillment(fulfillmentId: number, input?: Json): { fulfillment: Json; webhooks: WebhookRecord[] };
  createCheckout(shop: string, input?: Json): { checkout: Json; webhooks: WebhookRecord[] };
  updateCheckout(token: string, input?: Json): { checkout: Json; webhooks: WebhookRecord[] };
  uninstall(shop: string): { webhooks: WebhookRecord[] };
  /** A privacy request Shopify sends to the app's compliance address (customers/data_request, customers/redact, shop/redact). */
  privacyRequest(shop: string, topic: string, input?: Json): { webhooks: WebhookRecord[] };
  webhooks(): WebhookRecord[];
  flushWebhooks(): Promise<void>;
  queueFault(fault: Fault, times?: number): void;
  calls(): CallRecord[];
  reset(): void;
}

function resolveOptions(input: ShopifySandboxOptions): ResolvedOptions & { delayMs: number; attempts: number } {
  if (!input?.clientId || !input.clientSecret) throw new Error("createShopifySandbox: clientId and clientSecret are required.");
  const publicPath = (input.publicPath ?? "/sandbox/shopify").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createShopifySandbox: publicPath must start with "/".');
  const delayMs = input.webhookDelayMs ?? 1000;
  const attempts = input.webhookAttempts ?? 5;
  if (!(delayMs >= 0) || !Number.isInteger(attempts) || attempts < 1)
    throw new Error("createShopifySandbox: webhookDelayMs must be 0 or more and webhookAttempts at least 1.");
  return {
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    appName: input.appName ?? "Jumbe",
    publicPath,
    apiVersion: input.apiVersion ?? "2025-10",
    slowMs: input.slowMs ?? 30_000,
    complianceAddress: input.complianceWebhookAddress ?? input.demo?.webhookAddress ?? null,
    now: input.now ?? Date.now,
    delayMs,
    attempts,
  };
}

/**
 * A local stand-in for Shopify as an app sees it: the install for a test shop (grant page, signed
 * redirect, offline token), the Admin REST API's webhook subscriptions, and the store's events (an
 * order, a fulfilment with tracking, a checkout, removing the app) delivered as signed webhooks with
 * Shopify's headers and retries, twice or badly signed on request; magic values and queued faults, a
 * JSON control API for tests and a console. State is kept in `statePath` when given.
 */
/**
 * The demo's shop installed (sandbox/demo-grants.ts): its offline token and, the first time only,
 * its webhook subscriptions to the demo server, as installing the app leaves them.
 */
function adoptDemo(ctx: ShopifyContext, webhookAddress: string) {
  const domain = DEMO_SHOPIFY_SHOP.domain;
  const known = ctx.state.shops.has(domain);
  const shop = known ? ctx.state.shops.get(domain)! : { id: ctx.state.newId(), ...DEMO_SHOPIFY_SHOP };
  // As Jumbe asks (clients/shopify.ts SHOPIFY_SCOPES): orders marked paid and products read too (decision 142).
  const grant = {
    account: domain,
    clientId: ctx.options.clientId,
    scopes: ["read_orders", "read_customers", "write_orders", "read_products"],
  };
  const accessToken = demoShopifyToken(ctx.options.clientId);
  ctx.state.grants.adopt(grant, { accessToken, accessExpiresAt: null });
  if (!known) {
    ctx.state.shops.set(domain, shop);
    const record = ctx.state.grants.checkAccess(accessToken);
    if (record.state === "valid")
      for (const topic of DEMO_SHOPIFY_TOPICS) addSubscription(ctx, record.record, shop, topic, webhookAddress, ctx.options.apiVersion);
  }
  ctx.state.changed();
}

/** The topics the demo's install subscribed (Jumbe's: app/.server/infrastructure/clients/shopify.ts). */
const DEMO_SHOPIFY_TOPICS = [
  "orders/create",
  "fulfillments/create",
  "fulfillments/update",
  "checkouts/create",
  "checkouts/update",
  "products/create",
  "products/update",
  "products/delete",
  "app/uninstalled",
];

function shopOf(ctx: ShopifyContext, domain: string) {
  const shop = ctx.state.shop(domain);
  if (!shop) throw new Error(`No test shop ${domain}`);
  return shop;
}

function productOf(ctx: ShopifyContext, id: number) {
  const product = ctx.state.products.get(id);
  if (!product) throw new Error(`No product ${id}`);
  return product;
}

export function createShopifySandbox(input: ShopifySandboxOptions): ShopifySandbox {
  const options = resolveOptions(input);
  const grants = new OAuthGrants({ prefixes: { code: "", access: "shpat_", refresh: "shprt_" }, accessTtlMs: null, now: options.now });
  const ctx: ShopifyContext = {
    options,
    state: new ShopifyState(grants, options.now, input.statePath),
    faults: new FaultQueue(),
    slow: new SlowAnswers(options.slowMs),
    calls: new CallLog(options.now),
    sender: new WebhookSender({ secret: options.clientSecret, delayMs: options.delayMs, attempts: options.attempts, now: options.now }),
  };

  if (input.demo) adoptDemo(ctx, input.demo.webhookAddress);

  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  // The install pages and the Admin API are Shopify's own (the merchant's consent, the app's token): not gated.
  router.use(adminRouter(ctx));
  router.use(oauthRouter(ctx));
  router.post("/token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));

  return {
    router,
    async close() {
      ctx.sender.close();
      ctx.slow.close();
      ctx.state.close();
    },
    createOrder: (shop, spec = {}) => createOrder(ctx, shop, spec),
    order: (id) => ctx.state.orders.get(id),
    addProducts: (shop, specs) => addProducts(ctx, shopOf(ctx, shop), specs),
    changeProduct: (id, spec) => changeProduct(ctx, shopOf(ctx, productOf(ctx, id).shop), productOf(ctx, id), spec),
    deleteProduct: (id) => deleteProduct(ctx, shopOf(ctx, productOf(ctx, id).shop), productOf(ctx, id)),
    setShopCurrency: (shop, currency) => {
      shopOf(ctx, shop).currency = currency;
      ctx.state.changed();
    },
    createFulfillment: (orderId, spec = {}) => createFulfillment(ctx, orderId, spec),
    updateFulfillment: (id, spec = {}) => updateFulfillment(ctx, id, spec),
    createCheckout: (shop, spec = {}) => createCheckout(ctx, shop, spec),
    updateCheckout: (token, spec = {}) => updateCheckout(ctx, token, spec),
    uninstall: (shop) => uninstall(ctx, shop),
    privacyRequest: (shop, topic, spec = {}) => privacyRequest(ctx, shop, topic, spec),
    webhooks: () => ctx.sender.list(),
    flushWebhooks: () => ctx.sender.flush(),
    queueFault: (fault, times = 1) => ctx.faults.add(fault, times),
    calls: () => ctx.calls.list(),
    reset() {
      ctx.state.reset();
      ctx.sender.reset();
      ctx.faults.clear();
      ctx.calls.reset();
    },
  };
}
