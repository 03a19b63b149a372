import { env } from "../../../infrastructure/config/env";
import {
  isShopDomain,
  shopifyClient,
  shopifyInstallUrl,
  ShopifyError,
  verifyInstallQuery,
  type ShopifyClient,
} from "../../../infrastructure/clients/shopify";
import { ProviderError, type IntegrationProvider } from "../providers";
import { m } from "~/paraglide/messages";

/** Where Shopify delivers a connected shop's webhooks: Jumbe's public route. */
export const SHOPIFY_WEBHOOK_PATH = "/webhooks/shopify";
export const shopifyWebhookAddress = () => `${env().APP_URL}${SHOPIFY_WEBHOOK_PATH}`;

/** How often an Admin API call is tried when Shopify answers 429 (THROTTLED) or 5xx. */
const ATTEMPTS = 3;
/** The longest wait between attempts, whatever Retry-After says: a person waits on the connect. */
const MAX_WAIT_MS = 4_000;

/**
 * A shop's domain as people type it: "duka-bora", "duka-bora.myshopify.com" or its https address.
 * Null when it is not a `<name>.myshopify.com` domain.
 */
export function shopDomainOf(input: string): string | null {
  let value = input.trim().toLowerCase();
  if (!value) return null;
  value = value.replace(/^https?:\/\//, "").replace(/\/.*$/, "");
  if (/^[a-z0-9][a-z0-9-]{0,60}$/.test(value)) value = `${value}.myshopify.com`;
  return isShopDomain(value) ? value : null;
}

/** A Shopify call tried again on 429 and 5xx (waiting as Shopify says, at most MAX_WAIT_MS); other failures at once. */
export async function withRetry<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const again = error instanceof ShopifyError && (error.kind === "rate_limited" || error.kind === "server") && attempt < ATTEMPTS;
      if (!again) throw error;
      const wait = Math.min(error.retryAfterMs ?? 500, MAX_WAIT_MS);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

const asProviderError = (error: unknown) =>
  error instanceof ShopifyError
    ? new ProviderError(error.message, { grantGone: error.kind === "expired_token" || error.kind === "revoked" })
    : error;

/**
 * Shopify as a connector: the connect form asks for the shop's domain; the install redirect's hex
 * `hmac` is checked (constant time) and its shop must be the one asked for, before the state is spent
 * (a tampered return is a 400 and the genuine one still works); the code is exchanged for
 * an offline token (it does not expire, so there is nothing to refresh). The account is the shop.
 * Connecting subscribes the shop's webhooks to Jumbe's route; disconnecting removes them.
 */
export function shopifyProvider(client: ShopifyClient = shopifyClient()): IntegrationProvider {
  return {
    id: "shopify",
    startContext(form) {
      const shop = shopDomainOf(form.shop ?? "");
      return shop ? { ok: true, context: { shop } } : { ok: false, message: m.shopify_shop_invalid() };
    },
    authorizeUrl: ({ state, redirectUri, context }) => shopifyInstallUrl({ shop: context.shop!, redirectUri, state }),
    checkCallback(params, context) {
      if (!verifyInstallQuery(params)) return m.shopify_install_hmac_invalid();
      if (params.get("shop") !== context.shop) return m.shopify_install_shop_mismatch({ shop: context.shop ?? "" });
      return null;
    },
    async exchangeCode({ code, context, callbackParams }) {
      if (!verifyInstallQuery(callbackParams)) throw new ProviderError(m.shopify_install_hmac_invalid({}, { locale: "en" }));
      if (callbackParams.get("shop") !== context.shop)
        throw new ProviderError(m.shopify_install_shop_mismatch({ shop: context.shop ?? "" }, { locale: "en" }));
      try {
        const tokens = await client.exchangeCode(context.shop!, code);
        return { accessToken: tokens.accessToken, refreshToken: null, expiresAt: null, scopes: tokens.scopes };
      } catch (error) {
        throw asProviderError(error);
      }
    },
    refresh() {
      // Offline tokens do not expire; a token that stopped working was revoked (the app was removed).
      return Promise.reject(new ProviderError(m.shopify_token_gone({}, { locale: "en" }), { grantGone: true }));
    },
    async revoke({ accessToken }, context) {
      if (!accessToken || !context.shop) return;
      const address = shopifyWebhookAddress();
      const hooks = await withRetry(() => client.listWebhooks(context.shop!, accessToken));
      for (const hook of hooks.filter((h) => h.address === address))
        await withRetry(() => client.deleteWebhook(context.shop!, accessToken, hook.id));
    },
    async account(tokens, context) {
      const shop = context.shop!;
      try {
        // The shop's events come to Jumbe from now on (the ones already there are kept).
        await withRetry(() => client.subscribeAll(shop, tokens.accessToken, shopifyWebhookAddress()));
      } catch (error) {
        throw asProviderError(error);
      }
      return { label: shop, externalId: shop };
    },
  };
}
