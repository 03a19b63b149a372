/**
 * The campaigns domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { failureInWords } from "./failure-words";
export { pauseForClosing, pauseForRecategorisation, pauseForTemplateStatus } from "./guards";
export { holdQueuedMessages, resumeCampaign } from "./lifecycle";
export { COPY_CODE_MAX, LINK_MAX, headerMediaInput } from "./template-values";
export { parameterValue } from "./variables";
export { fillPlaceholders } from "./preview";
