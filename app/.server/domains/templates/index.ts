/**
 * The templates domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { recordTemplateEvent } from "./events";
export { TEMPLATE_MESSAGES, createTemplate, sendHeldTemplate } from "./manage";
export type { Actor as TemplateActor } from "./manage";
export { deleteUnattachedSamples } from "./media";
export { findTemplate } from "./queries";
