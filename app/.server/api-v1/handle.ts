import { z } from "zod";
import { authenticateApiKey } from "../developer/api-keys";
import { hitRateLimit } from "../security/rate-limit";
import { recordActivity } from "../activity/record";
import { log } from "../log";
import { ENDPOINTS } from "./endpoints";
import { openApiDocument } from "./openapi";
import { API_RATE_LIMIT, effectiveApiRateLimit, recordApiCall } from "./usage";

const OPENAPI_PATH = "/api/v1/openapi.json";

function apiError(status: number, code: string, message: string, headers: Record<string, string> = {}) {
  return Response.json({ code, message }, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

/**
 * Every /api/v1 request. The tenant comes from the bearer API key and from nothing else (no
 * cookies, no ids in the input); the key's rate limit is one counter in the database shared by
 * every instance; every call with a valid key is measured for the Developers page.
 */
export async function handleApiV1(request: Request): Promise<Response> {
  const started = performance.now();
  const url = new URL(request.url);
  if (url.pathname === OPENAPI_PATH) {
    if (request.method !== "GET" && request.method !== "HEAD") return apiError(405, "method_not_allowed", "Use GET.", { Allow: "GET" });
    return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" } });
  }
  const endpoint = ENDPOINTS.find((e) => e.path === url.pathname);
  if (!endpoint) return apiError(404, "not_found", `No endpoint ${url.pathname}. The API is described at ${OPENAPI_PATH}.`);
  if (request.method.toLowerCase() !== endpoint.method)
    return apiError(405, "method_not_allowed", `Use ${endpoint.method.toUpperCase()} for ${endpoint.path}.`, {
      Allow: endpoint.method.toUpperCase(),
    });

  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!match)
    return apiError(401, "missing_api_key", "Send your API key as the header Authorization: Bearer <key>.", {
      "WWW-Authenticate": 'Bearer realm="jumbe"',
    });
  const key = await authenticateApiKey(match[1]!);
  if (!key)
    return apiError(401, "invalid_api_key", "The API key is not valid or has been revoked.", {
      "WWW-Authenticate": 'Bearer realm="jumbe", error="invalid_token"',
    });

  let response: Response;
  try {
    const limit = effectiveApiRateLimit();
    const rate = await hitRateLimit(API_RATE_LIMIT, key.keyId);
    const limitHeaders = {
      "X-RateLimit-Limit": String(limit),
      "X-RateLimit-Remaining": String(Math.max(0, limit - rate.hits)),
      "X-RateLimit-Reset": String(rate.retryAfterSeconds),
    };
    if (!rate.allowed) {
      response = apiError(
        429,
        "rate_limited",
        `This key made more than ${limit} requests in a minute. Try again in ${rate.retryAfterSeconds} s.`,
        { ...limitHeaders, "Retry-After": String(rate.retryAfterSeconds) },
      );
    } else {
      const query = endpoint.query.safeParse(Object.fromEntries(url.searchParams));
      if (!query.success) {
        const issue = query.error.issues[0];
        const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
        response = apiError(
          400,
          "invalid_request",
          `${where}${issue?.code === "unrecognized_keys" ? `unknown parameter ${(issue as z.core.$ZodIssueUnrecognizedKeys).keys.join(", ")}` : (issue?.message ?? "invalid query")}`,
          limitHeaders,
        );
      } else {
        const body = endpoint.response.parse(await endpoint.run(key.organizationId, query.data as never));
        response = Response.json(body, { headers: { "Cache-Control": "no-store", ...limitHeaders } });
      }
    }
  } catch (error) {
    log().error({ err: error, path: url.pathname }, "API call failed");
    response = apiError(500, "internal_error", "Something went wrong on our side. Please try again.");
  }

  const ms = performance.now() - started;
  try {
    await recordApiCall(key.organizationId, response.status < 400, ms);
    // Refusals by the rate limit would flood the log; they show in the figures instead.
    if (response.status >= 400 && response.status !== 429)
      await recordActivity({
        organizationId: key.organizationId,
        type: "system",
        status: "error",
        action: "API call failed",
        details: `${request.method} ${url.pathname}${url.search} answered ${response.status}`,
      });
  } catch (error) {
    log().error({ err: error }, "could not record an API call");
  }
  return response;
}
