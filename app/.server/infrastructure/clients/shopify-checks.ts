import { createHmac, timingSafeEqual } from "node:crypto";
import { normalizeKenyanMobile } from "~/lib/phone";

/**
 * The pure checks Jumbe makes on what Shopify sends: the install redirect's `hmac`, a webhook's
 * `X-Shopify-Hmac-Sha256`, a shop's domain, and the customer's phone in an order, fulfilment or
 * checkout (shared/reference/integrations-ai-payouts.md, "Shopify Admin").
 */

/** A shop's own domain, `<name>.myshopify.com`: the only host a shop's calls may go to. */
export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;

export const isShopDomain = (value: unknown): value is string => typeof value === "string" && SHOP_DOMAIN.test(value);

/**
 * Whether the install redirect's `hmac` is the hex HMAC-SHA256, keyed with the app's secret, of the
 * other query parameters (without `hmac` and `signature`) sorted by name and joined as a query
 * string. Compared in constant time; a missing or malformed `hmac` is false.
 */
export function verifyShopifyInstallHmac(query: URLSearchParams | Record<string, string>, secret: string): boolean {
  const params = query instanceof URLSearchParams ? [...query.entries()] : Object.entries(query);
  const given = params.find(([key]) => key === "hmac")?.[1];
  if (typeof given !== "string" || !/^[0-9a-f]{64}$/i.test(given)) return false;
  const rest = params.filter(([key]) => key !== "hmac" && key !== "signature").sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const expected = createHmac("sha256", secret).update(new URLSearchParams(rest).toString()).digest();
  return timingSafeEqual(expected, Buffer.from(given, "hex"));
}

/**
 * Whether `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body with the app's secret,
 * compared in constant time. Check the bytes as received: re-serialised JSON breaks the HMAC.
 */
export function verifyShopifyWebhook(rawBody: string | Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== "string" || !/^[A-Za-z0-9+/]{43}=$/.test(header.trim())) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(header.trim(), "base64"));
}

/** A Kenyan mobile number in E.164 (`+2547XXXXXXXX`, `+2541XXXXXXXX`) from any way people write it; else null. */
export function kenyanPhone(value: unknown): string | null {
  if (typeof value !== "string" || !value.trim()) return null;
  const e164 = normalizeKenyanMobile(value);
  return e164 && /^\+254[17]\d{8}$/.test(e164) ? e164 : null;
}

const phoneIn = (value: unknown) => (typeof value === "object" && value !== null ? (value as { phone?: unknown }).phone : undefined);

/**
 * The customer's Kenyan mobile from an order, fulfilment or checkout payload: the first that reads
 * as one of the order's own `phone`, the customer's, the shipping address's (a fulfilment's
 * `destination`) and the billing address's. Null when none does.
 */
export function shopifyCustomerPhone(payload: unknown): string | null {
  if (typeof payload !== "object" || payload === null) return null;
  const p = payload as Record<string, unknown>;
  for (const candidate of [p.phone, phoneIn(p.customer), phoneIn(p.shipping_address), phoneIn(p.destination), phoneIn(p.billing_address)]) {
    const phone = kenyanPhone(candidate);
    if (phone) return phone;
  }
  return null;
}
