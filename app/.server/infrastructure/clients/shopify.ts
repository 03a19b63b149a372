import { env } from "~/.server/infrastructure/config/env";
import {
  callOutside,
  isObject,
  OutsideServiceError,
  retryAfterMs,
  stringOr,
  type OutsideAnswer,
  type OutsideFailure,
} from "./outside-call";
import { isShopDomain, verifyShopifyInstallHmac, verifyShopifyWebhook } from "./shopify-checks";

export { isShopDomain, kenyanPhone, shopifyCustomerPhone } from "./shopify-checks";

/**
 * Jumbe's client for Shopify (issue 45): the app's install on a shop (install URL, the redirect's
 * `hmac`, the code exchange for an offline token), the webhook subscriptions Jumbe needs through the
 * GraphQL Admin API (new public apps may not use REST since April 2025), and the webhook signature.
 * Every call goes to the shop's own `<name>.myshopify.com` through SHOPIFY_API_URL (`https://{shop}`;
 * the sandbox in sandbox mode).
 */

/**
 * What Jumbe reads: orders (with fulfilments and checkouts), customers' phones and the catalogue's
 * products; and writes: an order paid by M-Pesa marked paid (`orderMarkAsPaid` needs write_orders, decision 142).
 */
export const SHOPIFY_SCOPES = ["read_orders", "read_customers", "write_orders", "read_products"] as const;
/** The topics Jumbe listens to. */
export const SHOPIFY_TOPICS = [
  "orders/create",
  "fulfillments/create",
  "fulfillments/update",
  "checkouts/create",
  "checkouts/update",
  "products/create",
  "products/update",
  "products/delete",
  "app/uninstalled",
] as const;
/** Shopify's REST bucket leaks 2 calls a second: a 429 without Retry-After waits this long. */
const DEFAULT_RETRY_MS = 2_000;

export class ShopifyError extends OutsideServiceError {
  constructor(kind: OutsideFailure, httpStatus: number, message: string, extra: { retryAfterMs?: number; cause?: unknown } = {}) {
    super("Shopify", kind, httpStatus, message, extra);
    this.name = "ShopifyError";
  }
}

export interface ShopifyConfig {
  clientId: string;
  clientSecret: string;
  /** `https://{shop}`: where the browser installs the app. */
  authUrl: string;
  /** `https://{shop}`: where a shop's calls go. */
  apiUrl: string;
  apiVersion: string;
  timeoutMs: number;
}

export interface ShopifyWebhook {
  /** GraphQL's global id, `gid://shopify/WebhookSubscription/…`. */
  id: string;
  topic: string;
  address: string;
  apiVersion: string;
}

function configOf(given: Partial<ShopifyConfig>): ShopifyConfig {
  const settings = env();
  const clientId = given.clientId ?? settings.SHOPIFY_CLIENT_ID;
  const clientSecret = given.clientSecret ?? settings.SHOPIFY_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new ShopifyError("refused", 0, "Shopify is not configured: set SHOPIFY_CLIENT_ID and SHOPIFY_CLIENT_SECRET");
  return {
    clientId,
    clientSecret,
    authUrl: given.authUrl ?? settings.SHOPIFY_AUTH_URL,
    apiUrl: given.apiUrl ?? settings.SHOPIFY_API_URL,
    apiVersion: given.apiVersion ?? settings.SHOPIFY_API_VERSION,
    timeoutMs: given.timeoutMs ?? settings.SHOPIFY_TIMEOUT_MS,
  };
}

/** The shop's base URL from a `{shop}` template; only a `<name>.myshopify.com` domain is ever put in it. */
function shopUrl(template: string, shop: string) {
  if (!isShopDomain(shop)) throw new ShopifyError("refused", 0, `Shopify: "${shop}" is not a shop's <name>.myshopify.com domain`);
  return template.replace("{shop}", shop).replace(/\/+$/, "");
}

/** Shopify's `errors` as words: a string, or each field's messages. */
function errorsText(json: unknown) {
  if (!isObject(json)) return "";
  const errors = json.errors ?? json.error_description ?? json.error;
  if (typeof errors === "string") return errors;
  if (isObject(errors))
    return Object.entries(errors)
      .map(([field, messages]) => `${field} ${Array.isArray(messages) ? messages.join(", ") : String(messages)}`)
      .join("; ");
  return "";
}

function failureOf(answer: OutsideAnswer, what: string) {
  const status = answer.status;
  const message = `Shopify ${what}: ${errorsText(answer.json) || `HTTP ${status}`}`;
  if (status === 429)
    return new ShopifyError("rate_limited", status, message, { retryAfterMs: retryAfterMs(answer.headers, DEFAULT_RETRY_MS) });
  const kind: OutsideFailure =
    status === 401
      ? "expired_token"
      : status === 403
        ? "forbidden"
        : status === 404
          ? "not_found"
          : status === 422
            ? "conflict"
            : status >= 500
              ? "server"
              : "refused";
  return new ShopifyError(kind, status, message);
}

async function call(
  config: ShopifyConfig,
  shop: string,
  what: string,
  path: string,
  init: { method: "GET" | "POST" | "DELETE"; token?: string; body?: unknown },
) {
  try {
    return await callOutside("Shopify", `${shopUrl(config.apiUrl, shop)}${path}`, {
      method: init.method,
      headers: init.token ? { "X-Shopify-Access-Token": init.token } : {},
      body: init.body,
      timeoutMs: config.timeoutMs,
    });
  } catch (error) {
    if (error instanceof OutsideServiceError && !(error instanceof ShopifyError))
      throw new ShopifyError(error.kind, error.httpStatus, `Shopify ${what}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** `ORDERS_CREATE` → `orders/create` (GraphQL's topic enum and the topic webhooks carry). */
export const topicOfEnum = (value: string) => value.toLowerCase().replace("_", "/");
/** `orders/create` → `ORDERS_CREATE`. */
export const enumOfTopic = (topic: string) => topic.toUpperCase().replace("/", "_");

/** A GraphQL WebhookSubscription node as Jumbe keeps it. */
function webhookFrom(value: unknown): ShopifyWebhook {
  if (!isObject(value) || typeof value.id !== "string")
    throw new ShopifyError("malformed", 200, "Shopify answered a webhook subscription without an id");
  const apiVersion = isObject(value.apiVersion) ? stringOr(value.apiVersion.handle, "") : "";
  return { id: value.id, topic: topicOfEnum(stringOr(value.topic, "")), address: stringOr(value.uri ?? value.callbackUrl, ""), apiVersion };
}

const WEBHOOK_FIELDS = "id topic uri apiVersion { handle }";
const SUBSCRIBE = `mutation jumbeSubscribe($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) { webhookSubscription { ${WEBHOOK_FIELDS} } userErrors { field message } }
}`;
const LIST = `query jumbeWebhooks($first: Int!) { webhookSubscriptions(first: $first) { nodes { ${WEBHOOK_FIELDS} } } }`;
const NODES = `query jumbeConfirm($ids: [ID!]!) { nodes(ids: $ids) { id } }`;
const SHOP = `query jumbeShop { shop { myshopifyDomain } }`;
/** Shopify's `nodes` takes at most 250 ids a call. */
const NODES_PER_CALL = 250;
const UNSUBSCRIBE = `mutation jumbeUnsubscribe($id: ID!) { webhookSubscriptionDelete(id: $id) { deletedWebhookSubscriptionId userErrors { field message } } }`;
const MARK_PAID = `mutation jumbeMarkPaid($input: OrderMarkAsPaidInput!) {
  orderMarkAsPaid(input: $input) { order { id displayFinancialStatus } userErrors { field message } }
}`;
const PRODUCT_FIELDS = `id title description status featuredImage { url }
  variants(first: 100) { nodes { id title sku price availableForSale image { url } } }`;
const PRODUCTS = `query jumbeProducts($first: Int!, $after: String) {
  shop { currencyCode }
  products(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${PRODUCT_FIELDS} } }
}`;
const PRODUCT_NODES = `query jumbeProductNodes($ids: [ID!]!) { shop { currencyCode } nodes(ids: $ids) { id ... on Product { ${PRODUCT_FIELDS} } } }`;
const ORDER_STATUS = `query jumbeOrderStatus($ids: [ID!]!) { nodes(ids: $ids) { id ... on Order { displayFinancialStatus } } }`;
/** Every GraphQL operation Jumbe sends, as sent (the fidelity suite sends these same texts with Shopify's own library). */
export const SHOPIFY_OPERATIONS = { SUBSCRIBE, LIST, NODES, SHOP, UNSUBSCRIBE, MARK_PAID, ORDER_STATUS, PRODUCTS, PRODUCT_NODES } as const;

/** A product variant as Jumbe reads it from the GraphQL Admin API. */
export interface ShopifyVariant {
  id: string;
  title: string;
  sku: string;
  price: string;
  availableForSale: boolean;
  imageUrl: string | null;
}

/** A product as Jumbe reads it: its status (ACTIVE, DRAFT, ARCHIVED), its featured image, its variants (the first 100). */
export interface ShopifyProduct {
  id: string;
  title: string;
  description: string;
  status: string;
  imageUrl: string | null;
  variants: ShopifyVariant[];
}

const urlOf = (value: unknown) => (isObject(value) && typeof value.url === "string" ? value.url : null);
const nodesOf = (value: unknown) => (isObject(value) && Array.isArray(value.nodes) ? value.nodes.filter(isObject) : []);

function productFrom(node: Record<string, unknown>): ShopifyProduct {
  return {
    id: stringOr(node.id, ""),
    title: stringOr(node.title, ""),
    description: stringOr(node.description, ""),
    status: stringOr(node.status, ""),
    imageUrl: urlOf(node.featuredImage),
    variants: nodesOf(node.variants).map((v) => ({
      id: stringOr(v.id, ""),
      title: stringOr(v.title, ""),
      sku: stringOr(v.sku, ""),
      price: stringOr(v.price, ""),
      availableForSale: v.availableForSale === true,
      imageUrl: urlOf(v.image),
    })),
  };
}

const currencyOf = (data: Record<string, unknown>) => (isObject(data.shop) ? stringOr(data.shop.currencyCode, "") : "");

/** What `orderMarkAsPaid` answered: marked (now PAID), or the shop's userErrors in words. */
export type MarkPaidOutcome = { marked: true; financialStatus: string } | { marked: false; message: string };

/** GraphQL's `errors`: THROTTLED waits as its cost extension says; ACCESS_DENIED is a missing scope. */
function graphqlFailure(json: Record<string, unknown>, what: string) {
  const errors = Array.isArray(json.errors) ? json.errors.filter(isObject) : [];
  const first = errors[0] ?? {};
  const code = isObject(first.extensions) ? stringOr(first.extensions.code, "") : "";
  const message = `Shopify ${what}: ${stringOr(first.message, "GraphQL error")}`;
  if (code === "THROTTLED") return new ShopifyError("rate_limited", 200, message, { retryAfterMs: throttleWaitMs(json.extensions) });
  return new ShopifyError(code === "ACCESS_DENIED" ? "forbidden" : "refused", 200, message);
}

/** How long until the bucket holds the query's cost again: (cost − available) ÷ restore rate. */
function throttleWaitMs(extensions: unknown) {
  const costInfo = isObject(extensions) && isObject(extensions.cost) ? extensions.cost : {};
  const status = isObject(costInfo.throttleStatus) ? costInfo.throttleStatus : {};
  const missing = Number(costInfo.requestedQueryCost ?? 0) - Number(status.currentlyAvailable ?? 0);
  const rate = Number(status.restoreRate ?? 0);
  return rate > 0 && missing > 0 ? Math.ceil((missing / rate) * 1000) : DEFAULT_RETRY_MS;
}

/** The page where a merchant installs Jumbe on their shop; it comes back with code, hmac, shop, state, timestamp. */
export function shopifyInstallUrl(input: { shop: string; redirectUri: string; state: string }, given: Partial<ShopifyConfig> = {}) {
  const config = configOf(given);
  const query = new URLSearchParams({
    client_id: config.clientId,
    scope: SHOPIFY_SCOPES.join(","),
    redirect_uri: input.redirectUri,
    state: input.state,
  });
  return `${shopUrl(config.authUrl, input.shop)}/admin/oauth/authorize?${query}`;
}

/** The install redirect's `hmac`, with the app's secret (SHOPIFY_CLIENT_SECRET unless given). */
export const verifyInstallQuery = (query: URLSearchParams | Record<string, string>, secret?: string) =>
  verifyShopifyInstallHmac(query, secret ?? configOf({}).clientSecret);

/** A webhook's `X-Shopify-Hmac-Sha256` over the raw body, with the app's secret (SHOPIFY_CLIENT_SECRET unless given). */
export const verifyWebhook = (rawBody: string | Buffer, header: string | undefined, secret?: string) =>
  verifyShopifyWebhook(rawBody, header, secret ?? configOf({}).clientSecret);

/** Shopify's API with Jumbe's app; configuration from env() unless given. */
export function shopifyClient(given: Partial<ShopifyConfig> = {}) {
  const core = shopifyCore(given);
  return { ...core, ...ordersAndProducts((...args) => core.graphql(...args)) };
}

/** Orders marked paid and products read (decision 142), over the core client's GraphQL call. */
function ordersAndProducts(graphql: GraphqlCall) {
  return {
    /** Marks an order paid (GraphQL `orderMarkAsPaid`, write_orders). */
    markOrderPaid: (shop: string, accessToken: string, orderGid: string) => markOrderPaid(graphql, shop, accessToken, orderGid),
    /** An order's financial status (PENDING, PAID…) as the shop says it; null when the shop does not know the order. */
    orderFinancialStatus: (shop: string, accessToken: string, orderGid: string) =>
      orderFinancialStatus(graphql, shop, accessToken, orderGid),
    /** One page of the shop's products (cursor paging: `after` is the previous page's endCursor), with the shop's currency. */
    productsPage: (shop: string, accessToken: string, first: number, after: string | null) =>
      productsPage(graphql, shop, accessToken, first, after),
    /** These products as the shop has them now (null for one it no longer has, or never had), with the shop's currency. */
    productsById: (shop: string, accessToken: string, gids: string[]) => productsById(graphql, shop, accessToken, gids),
  };
}

/** The install, the webhook subscriptions and the confirmations (issue 45). */
function shopifyCore(given: Partial<ShopifyConfig>) {
  const admin = (config: ShopifyConfig) => `/admin/api/${config.apiVersion}`;
  return {
    /** The install's code for the shop's offline access token and the scopes granted. */
    async exchangeCode(shop: string, code: string) {
      const config = configOf(given);
      const answer = await call(config, shop, "code exchange", "/admin/oauth/access_token", {
        method: "POST",
        body: { client_id: config.clientId, client_secret: config.clientSecret, code },
      });
      if (answer.status !== 200)
        throw answer.status === 400
          ? new ShopifyError("revoked", 400, `Shopify code exchange: ${errorsText(answer.json)}`)
          : failureOf(answer, "code exchange");
      const json = isObject(answer.json) ? answer.json : {};
      const accessToken = stringOr(json.access_token, "");
      if (!accessToken) throw new ShopifyError("malformed", 200, "Shopify answered the code exchange without access_token");
      return { accessToken, scopes: stringOr(json.scope, "").split(",").filter(Boolean) };
    },

    /** One GraphQL Admin API call: its `data`, or the failure its status or `errors` say. */
    async graphql(shop: string, accessToken: string, what: string, query: string, variables: Record<string, unknown>) {
      const config = configOf(given);
      const answer = await call(config, shop, what, `${admin(config)}/graphql.json`, {
        method: "POST",
        token: accessToken,
        body: { query, variables },
      });
      if (answer.status !== 200) throw failureOf(answer, what);
      const json = isObject(answer.json) ? answer.json : {};
      if (Array.isArray(json.errors) && json.errors.length) throw graphqlFailure(json, what);
      if (!isObject(json.data)) throw new ShopifyError("malformed", 200, `Shopify ${what} answered without data`);
      return json.data;
    },

    /** Subscribes an address to a topic (GraphQL's webhookSubscriptionCreate); one already there answers `conflict`. */
    async subscribe(shop: string, accessToken: string, input: { topic: string; address: string }): Promise<ShopifyWebhook> {
      const data = await this.graphql(shop, accessToken, "webhook subscription", SUBSCRIBE, {
        topic: enumOfTopic(input.topic),
        webhookSubscription: { uri: input.address, format: "JSON" },
      });
      const result = isObject(data.webhookSubscriptionCreate) ? data.webhookSubscriptionCreate : {};
      const userErrors = Array.isArray(result.userErrors) ? result.userErrors.filter(isObject) : [];
      if (userErrors.length) {
        const message = userErrors.map((e) => stringOr(e.message, "")).join("; ");
        throw new ShopifyError(
          /already been taken/i.test(message) ? "conflict" : "refused",
          200,
          `Shopify webhook subscription: ${message}`,
        );
      }
      return webhookFrom(result.webhookSubscription);
    },

    /** The app's own subscriptions on the shop (the first 250). */
    async listWebhooks(shop: string, accessToken: string): Promise<ShopifyWebhook[]> {
      const data = await this.graphql(shop, accessToken, "webhook list", LIST, { first: 250 });
      const list =
        isObject(data.webhookSubscriptions) && Array.isArray(data.webhookSubscriptions.nodes) ? data.webhookSubscriptions.nodes : [];
      return list.map(webhookFrom);
    },

    /** Deletes a subscription by its GraphQL id; one already gone is fine. */
    async deleteWebhook(shop: string, accessToken: string, id: string) {
      await this.graphql(shop, accessToken, "webhook deletion", UNSUBSCRIBE, { id });
    },

    /**
     * Which of these global ids (`gid://shopify/Order/…`) the shop knows, asked with the shop's own
     * token (GraphQL `nodes`, 250 a call): Shopify answers null for an id that is not the shop's.
     */
    async knownNodes(shop: string, accessToken: string, ids: string[]): Promise<Set<string>> {
      const known = new Set<string>();
      for (let i = 0; i < ids.length; i += NODES_PER_CALL) {
        const data = await this.graphql(shop, accessToken, "confirmation", NODES, { ids: ids.slice(i, i + NODES_PER_CALL) });
        for (const node of Array.isArray(data.nodes) ? data.nodes : [])
          if (isObject(node) && typeof node.id === "string") known.add(node.id);
      }
      return known;
    },

    /** The shop's own `<name>.myshopify.com`, read with its token (a token no longer valid is `expired_token`). */
    async shopDomain(shop: string, accessToken: string): Promise<string> {
      const data = await this.graphql(shop, accessToken, "shop", SHOP, {});
      return isObject(data.shop) ? stringOr(data.shop.myshopifyDomain, "") : "";
    },

    /** Every topic Jumbe needs at `address`; subscriptions already there are kept. */
    async subscribeAll(shop: string, accessToken: string, address: string) {
      const existing = await this.listWebhooks(shop, accessToken);
      const made: ShopifyWebhook[] = [];
      for (const topic of SHOPIFY_TOPICS)
        if (!existing.some((w) => w.topic === topic && w.address === address))
          made.push(await this.subscribe(shop, accessToken, { topic, address }));
      return [...existing, ...made];
    },
  };
}

export type ShopifyClient = ReturnType<typeof shopifyClient>;

type GraphqlCall = (
  shop: string,
  accessToken: string,
  what: string,
  query: string,
  variables: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/**
 * `orderMarkAsPaid`: Shopify records a sale for the outstanding amount. An order already paid, or not
 * the shop's, is refused with userErrors (answered as `marked: false` and their words).
 */
async function markOrderPaid(graphql: GraphqlCall, shop: string, accessToken: string, orderGid: string): Promise<MarkPaidOutcome> {
  const data = await graphql(shop, accessToken, "mark as paid", MARK_PAID, { input: { id: orderGid } });
  const result = isObject(data.orderMarkAsPaid) ? data.orderMarkAsPaid : {};
  const userErrors = Array.isArray(result.userErrors) ? result.userErrors.filter(isObject) : [];
  if (userErrors.length)
    return {
      marked: false,
      message: userErrors
        .map((e) => stringOr(e.message, ""))
        .join("; ")
        .slice(0, 300),
    };
  const order = isObject(result.order) ? result.order : {};
  return { marked: true, financialStatus: stringOr(order.displayFinancialStatus, "PAID") };
}

async function orderFinancialStatus(graphql: GraphqlCall, shop: string, accessToken: string, orderGid: string): Promise<string | null> {
  const data = await graphql(shop, accessToken, "order status", ORDER_STATUS, { ids: [orderGid] });
  const node = Array.isArray(data.nodes) ? data.nodes[0] : null;
  return isObject(node) ? stringOr(node.displayFinancialStatus, "") || null : null;
}

async function productsPage(graphql: GraphqlCall, shop: string, accessToken: string, first: number, after: string | null) {
  const data = await graphql(shop, accessToken, "products", PRODUCTS, { first, after });
  const page = isObject(data.products) ? data.products : {};
  const info = isObject(page.pageInfo) ? page.pageInfo : {};
  return {
    currency: currencyOf(data),
    products: nodesOf(page).map(productFrom),
    next: info.hasNextPage === true && typeof info.endCursor === "string" ? info.endCursor : null,
  };
}

async function productsById(graphql: GraphqlCall, shop: string, accessToken: string, gids: string[]) {
  const data = await graphql(shop, accessToken, "products", PRODUCT_NODES, { ids: gids });
  const nodes = Array.isArray(data.nodes) ? data.nodes : [];
  return { currency: currencyOf(data), products: gids.map((_, i) => (isObject(nodes[i]) ? productFrom(nodes[i]) : null)) };
}
