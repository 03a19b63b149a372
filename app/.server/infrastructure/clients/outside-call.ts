/**
 * What the integrations' clients (HubSpot, Shopify, Google Sheets) share: one HTTP call with a
 * timeout that never follows a redirect (so nothing is called but the configured base URL), its
 * answer read as JSON within a size limit, and the kinds of failure their errors name.
 */

/** Answers larger than this are not read ("malformed"). */
export const OUTSIDE_ANSWER_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * `expired_token`: the access token is refused (expired or revoked): refresh it and try again once.
 * `revoked`: the refresh token or the grant itself is gone: the user must connect again.
 * `rate_limited`: try again after `retryAfterMs`. `server`: a 5xx. `timeout`: no answer in time.
 * `network`: not reached (refused, a redirect). `forbidden`: a missing scope or permission.
 * `not_found`, `conflict`: as named. `refused`: another 4xx. `malformed`: an answer that makes no sense.
 */
export type OutsideFailure =
  | "expired_token"
  | "revoked"
  | "rate_limited"
  | "server"
  | "timeout"
  | "network"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "refused"
  | "malformed";

/** An outside service's failure: which service, what kind, its HTTP status (0: no answer) and its own words. */
export class OutsideServiceError extends Error {
  readonly service: string;
  readonly kind: OutsideFailure;
  readonly httpStatus: number;
  /** With `rate_limited`: how long to wait before the next call. */
  readonly retryAfterMs?: number;
  constructor(
    service: string,
    kind: OutsideFailure,
    httpStatus: number,
    message: string,
    options: { retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "OutsideServiceError";
    this.service = service;
    this.kind = kind;
    this.httpStatus = httpStatus;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

export interface OutsideAnswer {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; undefined when empty. */
  json: unknown;
}

export interface OutsideRequest {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  headers?: Record<string, string>;
  /** An object is sent as JSON; URLSearchParams as a form. */
  body?: unknown;
  timeoutMs: number;
}

const timedOut = (error: unknown) => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

async function readLimited(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > OUTSIDE_ANSWER_LIMIT_BYTES) throw new RangeError("answer too large");
  const text = await response.text();
  if (text.length > OUTSIDE_ANSWER_LIMIT_BYTES) throw new RangeError("answer too large");
  return text;
}

/**
 * One call: the answer whatever its status, or an OutsideServiceError when none came (`timeout`,
 * `network`, a redirect) or it was not JSON (`malformed`).
 */
export async function callOutside(service: string, url: string, request: OutsideRequest): Promise<OutsideAnswer> {
  const headers: Record<string, string> = { Accept: "application/json", ...request.headers };
  let body: string | undefined;
  if (request.body instanceof URLSearchParams) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = request.body.toString();
  } else if (request.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(request.body);
  }
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { method: request.method, headers, body, signal, redirect: "error" });
  } catch (cause) {
    if (timedOut(cause))
      throw new OutsideServiceError(service, "timeout", 0, `${service} did not answer within ${request.timeoutMs} ms`, { cause });
    throw new OutsideServiceError(service, "network", 0, `${service} could not be reached`, { cause });
  }
  let text: string;
  try {
    text = await readLimited(response);
  } catch (cause) {
    if (timedOut(cause))
      throw new OutsideServiceError(service, "timeout", 0, `${service} did not answer within ${request.timeoutMs} ms`, { cause });
    throw new OutsideServiceError(service, "malformed", response.status, `${service} answered more than we read`, { cause });
  }
  if (!text.trim()) return { status: response.status, headers: response.headers, json: undefined };
  try {
    return { status: response.status, headers: response.headers, json: JSON.parse(text) as unknown };
  } catch (cause) {
    // A 5xx from a proxy in front of the service is often HTML: still a server error.
    if (response.status >= 500) return { status: response.status, headers: response.headers, json: undefined };
    throw new OutsideServiceError(
      service,
      "malformed",
      response.status,
      `${service} answered HTTP ${response.status} with a body that is not JSON`,
      { cause },
    );
  }
}

/** `Retry-After` in milliseconds (seconds, possibly decimal, or an HTTP date); the fallback without one. */
export function retryAfterMs(headers: Headers, fallbackMs: number, now = Date.now()): number {
  const value = headers.get("retry-after")?.trim();
  if (!value) return fallbackMs;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? fallbackMs : Math.max(0, at - now);
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const stringOr = <T>(value: unknown, fallback: T) => (typeof value === "string" ? value : fallback);
