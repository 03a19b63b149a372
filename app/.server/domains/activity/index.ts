/**
 * The activity domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { csvRow } from "./csv";
export { nairobiDate } from "./filters";
export { momentInWords } from "./moment";
export { RECENT_ROWS, recentActivityOnce } from "./queries";
export { recordActivity } from "./record";
export { SHOPIFY_REASONS, billingTypeInWords, categoryInWords } from "./stored-inputs";
export { actionInWords, activityInWords, detailsInWords } from "./words";
