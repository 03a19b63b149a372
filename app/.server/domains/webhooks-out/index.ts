/**
 * The webhooks-out domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { postSigned } from "./deliver";
export { checkWebhookUrl, resolveWebhookTarget, systemResolver } from "./endpoint";
export type { Resolver } from "./endpoint";
export { emitWebhookEvent, enqueueContactsCreated, enqueueMessageEvents } from "./events";
export { newWebhookSecret } from "./secret";
