import { documentedErrorCodes, openApiDocument } from "./openapi";
import { endpointDocs, type EndpointDoc } from "./examples";

// The Developers tab's reference, from the OpenAPI document: a short list of every endpoint on the
// tab itself, and each endpoint's examples and errors on a page of its own (issue 42: the whole
// reference in one page was 147 KB of HTML).

type Language = keyof EndpointDoc["examples"];

/** The operation the tab's own example shows (the spec's POST to the messages path). */
export const QUICK_START_OPERATION = "sendMessage";

/** Every endpoint in the document's order: what the tab lists, each linking to its page. */
export function endpointIndex() {
  return endpointDocs(openApiDocument()).map(({ operationId, method, path, summary }) => ({ operationId, method, path, summary }));
}

/** One endpoint's page: what it does, its example in `language`, and the codes it can answer (status, meaning); null for an unknown id. */
export function endpointReference(operationId: string, language: Language) {
  const doc = openApiDocument();
  const endpoint = endpointDocs(doc).find((e) => e.operationId === operationId);
  if (!endpoint) return null;
  const codes = documentedErrorCodes(doc, endpoint.path, endpoint.method);
  const catalogue = doc["x-error-catalogue"];
  return {
    operationId: endpoint.operationId,
    method: endpoint.method,
    path: endpoint.path,
    summary: endpoint.summary,
    description: endpoint.description,
    example: endpoint.examples[language],
    // Each code with its status and meaning; what to do about it is on the catalogue's page.
    errors: codes.flatMap((code) =>
      catalogue.filter((row) => row.code === code).map(({ code, status, meaning }) => ({ code, status, meaning })),
    ),
  };
}

/** The tab's own example in `language`. */
export function quickStartExample(language: Language) {
  return endpointDocs(openApiDocument()).find((e) => e.operationId === QUICK_START_OPERATION)!.examples[language];
}

/** The one catalogue of error codes, as the OpenAPI document publishes it. */
export function errorCatalogueRows() {
  return openApiDocument()["x-error-catalogue"];
}
