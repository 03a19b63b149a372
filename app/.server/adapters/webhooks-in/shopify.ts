import type { IncomingMessage, ServerResponse } from "node:http";
import { readBoundedBody, replyJson } from "../../infrastructure/http/raw-body";
import { noteDatabaseError, RETRY_AFTER_SECONDS } from "../../infrastructure/db/availability";
import { log } from "../../infrastructure/log";
import { receiveShopifyWebhook } from "../../domains/integrations/shopify/intake";

/**
 * Shopify's webhooks in: the HTTP of `/webhooks/shopify` (the method, the bounded body, the headers
 * read, the answer and its status), beside WhatsApp's receiver. What a delivery means (its
 * signature, its shop, storing it with its job) is the domain's: domains/integrations/shopify/intake.ts.
 */
export { SHOPIFY_WEBHOOK_PATH, shopifyWebhookAddress } from "../../domains/integrations/shopify/provider";

/** Shopify's order payloads with many lines stay well under this; nginx lets 1 MB through. */
export const SHOPIFY_WEBHOOK_MAX_BYTES = 1024 * 1024;

/** POST /webhooks/shopify on Node's own server, ahead of Express (like /webhooks/whatsapp): bounded body, no cookies. */
export async function handleShopifyWebhook(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "POST") return replyJson(res, 405, "Method not allowed.", { Allow: "POST" });
  if (Number(req.headers["content-length"] ?? 0) > SHOPIFY_WEBHOOK_MAX_BYTES) return replyJson(res, 413, "Payload too large.");
  let rawBody: Buffer;
  try {
    rawBody = await readBoundedBody(req, SHOPIFY_WEBHOOK_MAX_BYTES);
  } catch {
    return replyJson(res, 413, "Payload too large.");
  }
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  try {
    const outcome = await receiveShopifyWebhook({
      rawBody,
      hmac: header("x-shopify-hmac-sha256"),
      shop: header("x-shopify-shop-domain"),
      topic: header("x-shopify-topic"),
    });
    if (outcome.status === 401)
      log().warn({ path: "/webhooks/shopify", ip: req.socket.remoteAddress }, "shopify webhook refused: bad signature");
    if (outcome.status === 200) return replyJson(res, 200, "OK");
    return replyJson(res, outcome.status, outcome.message);
  } catch (error) {
    // Not stored: Shopify delivers it again on a non-2xx answer.
    if (noteDatabaseError(error))
      return replyJson(res, 503, "Service temporarily unavailable.", { "Retry-After": String(RETRY_AFTER_SECONDS) });
    log().error({ err: error }, "shopify webhook could not be stored");
    return replyJson(res, 500, "Could not store the event.");
  }
}
