import { ENDPOINTS, errorCodesOf } from "~/.server/adapters/api-v1/endpoints";
import { ERROR_CATALOGUE, isErrorCode } from "~/.server/adapters/api-v1/errors";
import { matchPath } from "~/.server/adapters/api-v1/handle";

/**
 * Why an /api/v1 answer breaks its documentation, or undefined when it keeps it: an error's code
 * must be in the catalogue, answered with the catalogue's status, and listed among the codes its
 * endpoint documents (errorCodesOf, which the OpenAPI document publishes). An unknown path or
 * method answers the router's own codes (not_found, method_not_allowed).
 */
export async function undocumentedAnswer(request: Request, response: Response): Promise<string | undefined> {
  if (response.status < 400) return undefined;
  const url = new URL(request.url);
  const where = `${request.method} ${url.pathname} answered ${response.status}`;
  let code: unknown;
  try {
    code = ((await response.json()) as { code?: unknown }).code;
  } catch {
    return `${where} without a JSON { code, message }`;
  }
  if (typeof code !== "string" || !isErrorCode(code)) return `${where} with ${String(code)}, a code the catalogue does not have`;
  if (ERROR_CATALOGUE[code].status !== response.status)
    return `${where} with ${code}, which the catalogue answers with ${ERROR_CATALOGUE[code].status}`;
  const endpoint = ENDPOINTS.find((e) => e.method === request.method.toLowerCase() && matchPath(e.path, url.pathname));
  if (!endpoint) return ["not_found", "method_not_allowed"].includes(code) ? undefined : `${where} with ${code} outside any endpoint`;
  if (!errorCodesOf(endpoint).includes(code)) return `${where} with ${code}, which ${endpoint.operationId} does not document`;
  return undefined;
}
