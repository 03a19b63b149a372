import { env } from "../../config/env";
import { isRecordedStep, recordGraphCall } from "./graph-call-log";
import { GraphCaller, type GraphClientOptions } from "./graph-call";
import { tokenCalls } from "./graph-tokens";
import { wabaCalls } from "./graph-waba";
import { phoneNumberCalls } from "./graph-phone-numbers";
import { uploadCalls } from "./graph-uploads";
import { templateCalls } from "./graph-templates";
import { messageCalls } from "./graph-messages";
import { mediaCalls } from "./graph-media";
import { catalogCalls, productCalls } from "./graph-catalogs";
import { catalogBatchCalls } from "./graph-catalog-batch";
import { datasetCalls } from "./graph-datasets";

export type { GraphClientOptions } from "./graph-call";
export { describeGraphFailure, GraphApiError, GraphNetworkError, MediaTooLargeError } from "./graph-errors";
export type { TokenDebugInfo, TokenExchange } from "./graph-tokens";
export type { GraphWaba } from "./graph-waba";
export type { GraphPhoneNumber } from "./graph-phone-numbers";
export type { GraphTemplate, GraphTemplateRequest } from "./graph-templates";
export type { SentMessage } from "./graph-messages";
export type { GraphMedia } from "./graph-media";
export type { GraphCatalogProduct, GraphProductFields } from "./graph-catalogs";
export type { ConversionEvent, EventsAnswer } from "./graph-datasets";

/**
 * Meta's Graph API for WhatsApp Business onboarding and sending: one client object, its calls
 * grouped in files as Graph groups them (decision 121): OAuth tokens (graph-tokens.ts), the WABA and
 * its subscription (graph-waba.ts), phone numbers (graph-phone-numbers.ts), resumable uploads
 * (graph-uploads.ts), message templates (graph-templates.ts), messages (graph-messages.ts) and media
 * (graph-media.ts), all through one GraphCaller (graph-call.ts: URL, token, transport, errors,
 * retries, call log). The base URL and version come from configuration, so the same client talks to
 * graph.facebook.com or to the local sandbox.
 */
export function createGraphClient(options: GraphClientOptions) {
  const graph = new GraphCaller(options);
  return {
    ...tokenCalls(graph),
    ...wabaCalls(graph),
    ...phoneNumberCalls(graph),
    ...uploadCalls(graph),
    ...templateCalls(graph),
    ...messageCalls(graph),
    ...mediaCalls(graph),
    ...catalogCalls(graph),
    ...productCalls(graph),
    ...catalogBatchCalls(graph),
    ...datasetCalls(graph),
  };
}

export type GraphClient = ReturnType<typeof createGraphClient>;

let shared: GraphClient | undefined;
let sharedKey = "";

/** The client configured from the environment. */
export function graphClient(): GraphClient {
  const config = env();
  const key = [
    config.GRAPH_API_BASE_URL,
    config.GRAPH_API_VERSION,
    config.META_APP_ID,
    config.META_APP_SECRET,
    config.GRAPH_API_TIMEOUT_MS,
  ].join("|");
  if (!shared || key !== sharedKey) {
    shared = createGraphClient({
      baseUrl: config.GRAPH_API_BASE_URL,
      version: config.GRAPH_API_VERSION,
      appId: config.META_APP_ID,
      appSecret: config.META_APP_SECRET,
      timeoutMs: config.GRAPH_API_TIMEOUT_MS,
      callLog: { records: isRecordedStep, record: recordGraphCall },
    });
    sharedKey = key;
  }
  return shared;
}
