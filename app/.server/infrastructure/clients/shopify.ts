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
 * Admin REST API (`webhooks.json`), and the webhook signature. Every call goes to the shop's own
 * `<name>.myshopify.com` through SHOPIFY_API_URL (`https://{shop}`; the sandbox in sandbox mode).
 */

/** What Jumbe reads: orders (with fulfilments and checkouts) and customers' phones. */
export const SHOPIFY_SCOPES = ["read_orders", "read_customers"] as const;
/** The topics Jumbe listens to. */
export const SHOPIFY_TOPICS = [
  "orders/create",
  "fulfillments/create",
  "fulfillments/update",
  "checkouts/create",
  "checkouts/update",
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
  id: number;
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

function webhookFrom(value: unknown): ShopifyWebhook {
  if (!isObject(value) || typeof value.id !== "number")
    throw new ShopifyError("malformed", 200, "Shopify answered a webhook without an id");
  return {
    id: value.id,
    topic: stringOr(value.topic, ""),
    address: stringOr(value.address, ""),
    apiVersion: stringOr(value.api_version, ""),
  };
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

    /** Subscribes an address to a topic; a subscription already there answers `conflict`. */
    async subscribe(shop: string, accessToken: string, input: { topic: string; address: string }): Promise<ShopifyWebhook> {
      const config = configOf(given);
      const answer = await call(config, shop, "webhook subscription", `${admin(config)}/webhooks.json`, {
        method: "POST",
        token: accessToken,
        body: { webhook: { topic: input.topic, address: input.address, format: "json" } },
      });
      if (answer.status !== 201) throw failureOf(answer, "webhook subscription");
      return webhookFrom(isObject(answer.json) ? answer.json.webhook : undefined);
    },

    async listWebhooks(shop: string, accessToken: string): Promise<ShopifyWebhook[]> {
      const config = configOf(given);
      const answer = await call(config, shop, "webhook list", `${admin(config)}/webhooks.json`, { method: "GET", token: accessToken });
      if (answer.status !== 200) throw failureOf(answer, "webhook list");
      const list = isObject(answer.json) && Array.isArray(answer.json.webhooks) ? answer.json.webhooks : [];
      return list.map(webhookFrom);
    },

    async deleteWebhook(shop: string, accessToken: string, id: number) {
      const config = configOf(given);
      const answer = await call(config, shop, "webhook deletion", `${admin(config)}/webhooks/${id}.json`, {
        method: "DELETE",
        token: accessToken,
      });
      if (answer.status !== 200 && answer.status !== 404) throw failureOf(answer, "webhook deletion");
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
