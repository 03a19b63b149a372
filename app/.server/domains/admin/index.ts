/**
 * The admin domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { recordAdminAction } from "./audit";
export { STEP_UP_FIELD, checkStepUp } from "./step-up";
