import { createHash } from "node:crypto";
import { z } from "zod";
import { authenticateApiKey } from "../../domains/developer/api-keys";
import { recordActivity } from "../../domains/activity/record";
import { log } from "../../infrastructure/log";
import { isDatabaseUnavailableError } from "../../infrastructure/db/availability";
import { STORAGE_UNAVAILABLE_MESSAGE, StorageUnavailableError } from "../../infrastructure/storage";
import { englishOf, words, type MessageKey, type Said } from "../../infrastructure/words/said";
import { BODY_LIMITS } from "../../infrastructure/http/body-limit";
import { ENDPOINTS, idempotencyOf, takesBody, type Endpoint, type EndpointInput } from "./endpoints";
import type { ApiCaller } from "./caller";
import { requestMeta, type RequestMeta } from "../../infrastructure/http/request-meta";
import { multipartBoundary } from "../../infrastructure/http/multipart";
import { openApiDocument } from "./openapi";
import { ApiProblem } from "./problem";
import { problemDocument } from "./errors";
import { requestIdOf } from "../../infrastructure/http/request-id";
import { decryptSecret, encryptSecret } from "../../infrastructure/security/crypto";
import type { Role } from "~/lib/permissions";
import { answerWatchers } from "./answer-watchers";
import { can } from "../../domains/auth/permissions";
import { oncePerKey } from "./idempotency";
import { hashRequest } from "../../domains/messaging/queue";
import { API_RATE_LIMIT, effectiveApiRateLimit, recordApiCall } from "./usage";

const OPENAPI_PATH = "/api/v1/openapi.json";

/** Request bodies: Express refuses larger ones before they get here (http/body-limit.ts); this holds without it too. */
export const API_BODY_LIMIT = BODY_LIMITS.default;
const TOO_LARGE = `The request body is over ${API_BODY_LIMIT / 1024} KB.`;
const streamedLimit = (endpoint: Endpoint) => endpoint.rawBody?.maxBytes ?? endpoint.multipart?.maxBytes;
const tooLarge = (endpoint: Endpoint) => {
  const limit = streamedLimit(endpoint);
  return limit ? `The request body is over ${Math.floor(limit / 1024 / 1024)} MB.` : TOO_LARGE;
};

export const PROBLEM_JSON = "application/problem+json";

/**
 * An error answer, a problem (`problemDocument`): the status the catalogue gives the code
 * (errors.ts), so a code answers one status wherever it comes from. `extra` adds fields
 * (permission_denied's permission). handleApiV1 adds the request's id (requestId).
 */
function apiError(status: number, code: string, message: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}) {
  const problem = problemDocument(status, code, message, extra);
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "Content-Type": PROBLEM_JSON, "Cache-Control": "no-store", ...headers },
  });
}

/**
 * Every /api/v1 request. The tenant comes from the bearer API key and from nothing else (no
 * cookies, no ids in the input); the key's rate limit is one counter in the database shared by
 * every instance; every call with a valid key is measured for the Developers page.
 */
export async function handleApiV1(request: Request, meta: RequestMeta = requestMeta(request)): Promise<Response> {
  // Express settled it (request-id.ts); a caller without it (a test, the loopback server) gets one here.
  const requestId = requestIdOf(request.headers.get("x-request-id"));
  const response = await withRequestId(await route(request, requestId, meta), requestId);
  for (const watch of answerWatchers) watch(request, response);
  return response;
}

/** The answer with its request's id: the X-Request-Id header on every answer, `requestId` in an error's body. */
async function withRequestId(response: Response, requestId: string): Promise<Response> {
  response.headers.set("X-Request-Id", requestId);
  if (response.headers.get("content-type") !== PROBLEM_JSON) return response;
  const problem = (await response.json()) as Record<string, unknown>;
  return new Response(JSON.stringify({ ...problem, requestId }), { status: response.status, headers: response.headers });
}

async function route(request: Request, requestId: string, meta: RequestMeta): Promise<Response> {
  const started = performance.now();
  const url = new URL(request.url);
  if (url.pathname === OPENAPI_PATH) {
    if (request.method !== "GET" && request.method !== "HEAD") return apiError(405, "method_not_allowed", "Use GET.", { Allow: "GET" });
    return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" } });
  }
  const segments = url.pathname.split("/");
  const matches = ENDPOINTS.flatMap((e) => {
    const params = matchSegments(e.path, segments);
    return params ? [{ endpoint: e, params }] : [];
  });
  if (!matches.length) return apiError(404, "not_found", `No endpoint ${url.pathname}. The API is described at ${OPENAPI_PATH}.`);
  const match = matches.find((m) => m.endpoint.method === request.method.toLowerCase());
  if (!match) {
    const allowed = [...new Set(matches.map((m) => m.endpoint.method.toUpperCase()))];
    return apiError(405, "method_not_allowed", `Use ${allowed.join(" or ")} for ${matches[0]!.endpoint.path}.`, {
      Allow: allowed.join(", "),
    });
  }
  const { endpoint } = match;
  // A declared length over the limit is refused before anything is read (as Express does in front).
  const bodyLimit = streamedLimit(endpoint) ?? API_BODY_LIMIT;
  if (takesBody(endpoint) && Number(request.headers.get("content-length") ?? 0) > bodyLimit)
    return apiError(413, "payload_too_large", tooLarge(endpoint));

  const header = request.headers.get("authorization") ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!bearer)
    return apiError(401, "missing_api_key", "Send your API key as the header Authorization: Bearer <key>.", {
      "WWW-Authenticate": 'Bearer realm="jumbe"',
    });
  const key = await authenticateApiKey(bearer[1]!, API_RATE_LIMIT, endpoint.prefetch);
  if (!key)
    return apiError(401, "invalid_api_key", "The API key is not valid or has been revoked.", {
      "WWW-Authenticate": 'Bearer realm="jumbe", error="invalid_token"',
    });
  if (key.suspended)
    return apiError(
      403,
      "account_suspended",
      "Your organisation is suspended, so its API key does nothing for now. Contact Jumbe support to have it reinstated; the same key works again once it is.",
    );

  let response: Response;
  try {
    const limit = effectiveApiRateLimit();
    const rate = key.rate;
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
    } else if (!can(key.role, endpoint.permission)) {
      response = apiError(
        403,
        "permission_denied",
        `This API key acts with the role of the member who made it (${key.role}), which does not include the permission ${endpoint.permission}. Ask an owner or admin to regenerate the key on the Developers page, or to give that member a role with this permission.`,
        limitHeaders,
        { permission: endpoint.permission },
      );
    } else {
      response = await answer(endpoint, request, url, match.params, limitHeaders, key, meta);
    }
  } catch (error) {
    response = failedCall(error, endpoint, url.pathname, requestId);
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
        details: await failedCallWords(request.method, `${url.pathname}${url.search}`, response),
      });
  } catch (error) {
    log().error({ err: error }, "could not record an API call");
  }
  return response;
}

/** The answer to a call its endpoint did not answer: the error in the API's words, or thrown on to the server. */
function failedCall(error: unknown, endpoint: Endpoint, path: string, requestId: string): Response {
  // The database gone mid-call: the server's outage answer (503 with Retry-After), not a 500.
  if (isDatabaseUnavailableError(error)) throw error;
  // The limit passed while the body streamed in: Express has answered 413 (or this does).
  if (isTooLarge(error)) return apiError(413, "payload_too_large", tooLarge(endpoint));
  if (error instanceof StorageUnavailableError) {
    log().warn({ err: error, path, requestId }, "file store unavailable");
    return apiError(503, "storage_unavailable", STORAGE_UNAVAILABLE_MESSAGE, { "Retry-After": String(error.retryAfterSeconds) });
  }
  log().error({ err: error, path, requestId }, "API call failed");
  return apiError(500, "internal_error", "Something went wrong on our side. Please try again.");
}

const REFUSAL_WORDS_MAX = 300;

/** The API's methods as the activity log keeps them (another, were there one, as it is). */
const METHOD_WORDS = new Map<string, MessageKey>([
  ["GET", "app_activity_detail_http_get"],
  ["POST", "app_activity_detail_http_post"],
  ["PUT", "app_activity_detail_http_put"],
  ["PATCH", "app_activity_detail_http_patch"],
  ["DELETE", "app_activity_detail_http_delete"],
]);

/**
 * A failed call's activity line, in English: "GET /api/v1/x answered 400: invalid_request: ...". The
 * method, the path and the answer's code and message are data (the answer's texts are the caller's,
 * in English); "answered" is said in the log's reader's words.
 */
async function failedCallWords(method: string, path: string, response: Response): Promise<string> {
  const known = METHOD_WORDS.get(method);
  const inputs: Record<string, Said> = { method: known ? words(known) : method, path, status: String(response.status) };
  const refusal = await refusalWords(response);
  return englishOf(
    refusal
      ? words("app_activity_detail_api_call_refused", { ...inputs, refusal })
      : words("app_activity_detail_api_call_answered", inputs),
  );
}

/**
 * "invalid_request: The query parameter connection ...": why a failed call failed, for its activity
 * line, from the answer's own code and message (texts Jumbe wrote for the caller; never the request
 * or its body), cut to a bounded length. Nothing when the answer is not such a JSON error.
 */
async function refusalWords(response: Response): Promise<string> {
  if (!response.headers.get("content-type")?.includes("json")) return "";
  try {
    const answer = (await response.clone().json()) as { code?: unknown; message?: unknown };
    const code = typeof answer.code === "string" ? answer.code.slice(0, 60) : "";
    const message = typeof answer.message === "string" ? answer.message.replace(/\s+/g, " ").trim() : "";
    if (!code && !message) return "";
    const text = [code, message].filter(Boolean).join(": ");
    return text.length > REFUSAL_WORDS_MAX ? `${text.slice(0, REFUSAL_WORDS_MAX - 1)}…` : text;
  } catch {
    return "";
  }
}

/** A pattern's segments, each a literal or a parameter's name: split once per pattern, not on every request. */
const patternSegments = new Map<string, { literal?: string; param?: string }[]>();

function segmentsOf(pattern: string) {
  let segments = patternSegments.get(pattern);
  if (!segments) {
    segments = pattern.split("/").map((part) => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      return param ? { param } : { literal: part };
    });
    patternSegments.set(pattern, segments);
  }
  return segments;
}

/** The path's parameters when `pattern` (`/api/v1/templates/{id}`) matches it; undefined otherwise. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  return matchSegments(pattern, pathname.split("/"));
}

function matchSegments(pattern: string, got: string[]): Record<string, string> | undefined {
  const want = segmentsOf(pattern);
  if (want.length !== got.length) return undefined;
  for (let i = 0; i < want.length; i++) if (want[i]!.literal !== undefined && want[i]!.literal !== got[i]) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const name = want[i]!.param;
    if (name === undefined) continue;
    if (!got[i]) return undefined;
    try {
      params[name] = decodeURIComponent(got[i]!);
    } catch {
      return undefined;
    }
  }
  return params;
}

function invalid(message: string, headers: Record<string, string>) {
  return apiError(400, "invalid_request", message, headers);
}

/** A validated call's answer: query, path parameters and body checked, then the endpoint run. */
// long: the API's one pipeline for every endpoint, read top to bottom as a request meets it: query, path, body or file, idempotency, run, answer
async function answer(
  endpoint: Endpoint,
  request: Request,
  url: URL,
  rawParams: Record<string, string>,
  headers: Record<string, string>,
  key: { organizationId: string; keyId: string; prefix: string; role: Role; prefetched: unknown },
  meta: RequestMeta,
): Promise<Response> {
  const { organizationId, prefetched, keyId: apiKeyId, role } = key;
  // Who called, for an activity row the endpoint writes (decision 155): the key's prefix, never its secret.
  const caller: ApiCaller = { keyPrefix: key.prefix, meta };
  const query = endpoint.query.safeParse(Object.fromEntries(url.searchParams));
  if (!query.success) {
    const issue = query.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return invalid(
      `${where}${issue?.code === "unrecognized_keys" ? `unknown parameter ${(issue as z.core.$ZodIssueUnrecognizedKeys).keys.join(", ")}` : (issue?.message ?? "invalid query")}`,
      headers,
    );
  }
  // A path parameter the endpoint cannot take names nothing it has.
  const params = endpoint.params.safeParse(rawParams);
  if (!params.success) return apiError(404, "not_found", endpoint.notFound ?? `Nothing of yours has the id in ${url.pathname}.`, headers);

  let body: unknown;
  let file: { contentType: string; bytes: Buffer } | undefined;
  if (endpoint.rawBody) {
    const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!endpoint.rawBody.contentTypes.includes(contentType))
      return apiError(
        415,
        "unsupported_media_type",
        `Send the file as the body with its Content-Type: ${endpoint.rawBody.contentTypes.join(", ")}${contentType ? ` (not ${contentType.slice(0, 60)})` : ""}.`,
        headers,
      );
    let bytes: Buffer | undefined;
    try {
      bytes = await readBytes(request, endpoint.rawBody.maxBytes);
    } catch (error) {
      if (isTooLarge(error)) throw error;
      return invalid("The request body could not be read.", headers);
    }
    if (bytes === undefined) return apiError(413, "payload_too_large", tooLarge(endpoint), headers);
    file = { contentType, bytes };
  }
  let upload: EndpointInput<z.ZodType, z.ZodType, z.ZodType>["upload"];
  if (endpoint.multipart) {
    const boundary = multipartBoundary(request.headers.get("content-type"));
    if (!boundary)
      return apiError(
        415,
        "unsupported_media_type",
        `Send the file as multipart/form-data, in the part named ${endpoint.multipart.field} (curl -F "${endpoint.multipart.field}=@${endpoint.multipart.example.file}").`,
        headers,
      );
    upload = { body: request.body, boundary, maxBytes: endpoint.multipart.maxBytes };
  }
  if (endpoint.body) {
    // JSON only, said so (415): a form or text/plain body is not read as JSON, not even JSON sent as text.
    const declared = request.headers.get("content-type");
    if (declared !== null && !isJsonType(declared)) return notJson(declared, headers);
    let text: string | undefined;
    try {
      text = await readBody(request);
    } catch (error) {
      if (isTooLarge(error)) throw error;
      return invalid("The request body could not be read.", headers);
    }
    if (text === undefined) return apiError(413, "payload_too_large", TOO_LARGE, headers);
    if (declared === null && text.trim()) return notJson(declared, headers);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return invalid(
        text.trim()
          ? "The request body is not valid JSON."
          : "Send the request as a JSON object in the body (Content-Type: application/json).",
        headers,
      );
    }
    const parsed = endpoint.body.schema.safeParse(raw);
    if (!parsed.success) return invalid(describeIssues(parsed.error.issues, raw), headers);
    const bad = unstorableString(parsed.data, []);
    if (bad)
      return invalid(
        `${bad.length ? `${locate(bad, raw)}: ` : ""}Text cannot contain NUL characters or half of a surrogate pair.`,
        headers,
      );
    body = parsed.data;
  }

  const idempotent = idempotencyOf(endpoint);
  let idempotencyKey: string | undefined;
  if (idempotent) {
    const header = request.headers.get("idempotency-key");
    if (header !== null) {
      if (!/^[\x21-\x7e]{1,255}$/.test(header))
        return invalid("The Idempotency-Key header must be 1 to 255 visible ASCII characters, such as a UUID.", headers);
      idempotencyKey = header;
    }
  }

  // Whether this answer is the first one's again, said on every answer to a request with a key.
  let replayed = false;
  const noteReplayed = () => void (replayed = true);
  const replayHeaders = (): Record<string, string> => (idempotencyKey ? { "Idempotency-Replayed": String(replayed) } : {});
  const seal = (answer: unknown) => (endpoint.secretInAnswer ? { sealed: encryptSecret(JSON.stringify(answer ?? null)) } : answer);
  const unseal = (kept: unknown) => (endpoint.secretInAnswer ? JSON.parse(decryptSecret((kept as { sealed: string }).sealed)) : kept);
  try {
    const input = {
      organizationId,
      apiKeyId,
      caller,
      role,
      query: query.data,
      params: params.data,
      body,
      file,
      upload,
      idempotencyKey,
      noteReplayed,
      prefetched,
    };
    let result =
      idempotent === "replay" && idempotencyKey
        ? await oncePerKey(
            {
              organizationId,
              key: idempotencyKey,
              requestHash: hashRequest({
                endpoint: `${endpoint.method} ${endpoint.path}`,
                params: params.data,
                body,
                file: file && { contentType: file.contentType, sha256: createHash("sha256").update(file.bytes).digest("hex") },
              }),
              thing: "request",
            },
            {
              create: () => endpoint.run(input),
              remember: seal,
              replay: (first) => {
                noteReplayed();
                return unseal(first) as Awaited<ReturnType<Endpoint["run"]>>;
              },
            },
          )
        : await endpoint.run(input);
    result = withHasMore(result);
    if (endpoint.status === 204)
      return new Response(null, { status: 204, headers: { "Cache-Control": "no-store", ...headers, ...replayHeaders() } });
    return Response.json(endpoint.response.parse(result), {
      status: endpoint.status,
      headers: { "Cache-Control": "no-store", ...headers, ...replayHeaders() },
    });
  } catch (error) {
    if (error instanceof ApiProblem)
      return apiError(
        error.status,
        error.code,
        error.message,
        { ...headers, ...replayHeaders() },
        error.field === undefined ? {} : { field: error.field },
      );
    throw error;
  }
}

/**
 * A list's answer (`{ data: [...] }`) says whether more follow: hasMore is true when a next page
 * exists (nextCursor), false for a last page and for the lists that are never paged. Every list of
 * the API answers it (its schema has it: endpoints.ts's listed()).
 */
function withHasMore<T>(result: T): T {
  if (result === null || typeof result !== "object" || !Array.isArray((result as { data?: unknown }).data)) return result;
  const list = result as { nextCursor?: unknown; hasMore?: unknown };
  return { ...result, hasMore: typeof list.hasMore === "boolean" ? list.hasMore : list.nextCursor != null };
}

/** application/json, with charset utf-8 if any, or a JSON type (application/problem+json, application/merge-patch+json). */
export function isJsonType(contentType: string) {
  const [type, ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (!type || !/^application\/(?:[a-z0-9.!#$&^_-]+\+)?json$/.test(type)) return false;
  return parameters.every((parameter) => {
    const [name, value] = parameter.split("=").map((part) => part.trim());
    return name !== "charset" || value?.replace(/"/g, "") === "utf-8";
  });
}

function notJson(declared: string | null, headers: Record<string, string>) {
  const named = declared?.trim() ? ` (not ${declared.trim().slice(0, 60)})` : " (none was given)";
  return apiError(
    415,
    "unsupported_media_type",
    `Send the body as JSON with the header Content-Type: application/json${named}. Form and text bodies are not read.`,
    headers,
  );
}

function isTooLarge(error: unknown) {
  const e = error as { status?: unknown; cause?: { status?: unknown } } | null;
  return e?.status === 413 || e?.cause?.status === 413;
}

/** The body as text, or undefined past API_BODY_LIMIT bytes (a chunked body declares no length). Invalid UTF-8 reads as U+FFFD. */
async function readBody(request: Request): Promise<string | undefined> {
  const bytes = await readBytes(request, API_BODY_LIMIT);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** The body's bytes, or undefined past `limit` (read no further). */
async function readBytes(request: Request, limit: number): Promise<Buffer | undefined> {
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * A readable place in the body for a schema path: `components[1].buttons[0].text`, with a
 * component named by its type where the body gives one (`components.BODY.text`), as the
 * template rules' messages name them.
 */
function locate(path: readonly PropertyKey[], raw: unknown) {
  let out = "";
  let node: unknown = raw;
  let parentKey: PropertyKey | undefined;
  for (const key of path) {
    const child = node !== null && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    const type = (child as { type?: unknown } | undefined)?.type;
    if (typeof key === "number" && parentKey === "components" && typeof type === "string" && /^[A-Z_]{1,20}$/.test(type)) out += `.${type}`;
    else if (typeof key === "number") out += `[${key}]`;
    else out += `${out ? "." : ""}${String(key)}`;
    node = child;
    parentKey = key;
  }
  return out;
}

function describeIssues(issues: z.core.$ZodIssue[], raw: unknown) {
  if (issues[0]?.path.length === 0 && issues[0].code === "invalid_type")
    return "The request body must be a JSON object (see the API's description for its fields).";
  return issues
    .slice(0, 10)
    .map((issue) => {
      const where = issue.path.length ? `${locate(issue.path, raw)}: ` : "";
      if (issue.code === "unrecognized_keys") return `${where}unknown field ${issue.keys.join(", ")}`;
      return `${where}${issue.message}`;
    })
    .join("; ");
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string PostgreSQL could not store (NUL, a lone surrogate), or undefined. */
function unstorableString(value: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (typeof value === "string") return value.includes("\u0000") || LONE_SURROGATE.test(value) ? path : undefined;
  if (value === null || typeof value !== "object" || path.length > 16) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = unstorableString(key, path) ?? unstorableString(item, [...path, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return undefined;
}
