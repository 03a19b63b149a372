/** What server.ts needs for `/webhooks/shopify` on Node's own server. */
export { handleShopifyWebhook } from "./intake";
export { SHOPIFY_WEBHOOK_PATH } from "./provider";
export { shopifyWebhookAddress } from "./provider";
