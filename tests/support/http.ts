import { createRequestContext } from "~/.server/infrastructure/http/context";
import { sessionWriteDone } from "~/.server/domains/auth/sessions";
/** What react-router's data() returns. */
interface DataWithResponseInit<T> {
  type: "DataWithResponseInit";
  data: T;
  init: ResponseInit | null;
}

export const APP = "http://jumbe.test";

export interface RequestOptions {
  cookie?: string;
  ip?: string;
  userAgent?: string;
  headers?: Record<string, string>;
}

function baseHeaders(options: RequestOptions) {
  const headers = new Headers(options.headers);
  if (options.cookie) headers.set("cookie", options.cookie);
  headers.set("user-agent", options.userAgent ?? "vitest");
  return headers;
}

/** A form post as a browser without JavaScript sends it. */
export function formRequest(path: string, fields: Record<string, string | string[]>, options: RequestOptions = {}) {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(key, v);
  const headers = baseHeaders(options);
  headers.set("content-type", "application/x-www-form-urlencoded");
  headers.set("origin", APP);
  return new Request(`${APP}${path}`, { method: "POST", body, headers });
}

export function jsonRequest(path: string, payload: unknown, options: RequestOptions = {}) {
  const headers = baseHeaders(options);
  headers.set("content-type", "application/json");
  headers.set("origin", APP);
  return new Request(`${APP}${path}`, { method: "POST", body: JSON.stringify(payload), headers });
}

export function getRequest(path: string, options: RequestOptions = {}) {
  return new Request(`${APP}${path}`, { headers: baseHeaders(options) });
}

export interface Outcome<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
  location: string | null;
  setCookies: string[];
}

/**
 * Any loader or action: each route declares its own argument type, and `routeArgs` supplies what
 * they all read, so the harness accepts every one of them (a `never` argument fits any parameter).
 */
export type Handler = (args: never) => unknown;

/** What a test reads from a loader or action: its data, out of promises and `data()`; a Response carries none. */
export type RouteData<H extends Handler> = Unwrapped<Awaited<ReturnType<H>>>;
// react-router declares data()'s class with `type: string`, so it is matched by its shape.
type Unwrapped<V> = V extends Response ? never : V extends { type: string; data: infer D; init: ResponseInit | null } ? D : V;

/** The arguments React Router hands a loader or action, for tests that call one directly. */
export function routeArgs(request: Request, params: Record<string, string> = {}, options: { ip?: string } = {}): never {
  return {
    request,
    url: new URL(request.url),
    pattern: "",
    params,
    context: createRequestContext({ clientIp: options.ip ?? "198.51.100.7" }),
  } as never;
}

/** Runs a loader or action as React Router would, turning returns and throws into one shape. */
// The one `any` left in the tests: some 40 integration files read `data` from a union of a route's
// answers without narrowing (381 type errors with `unknown`). New tests use `callRoute`, typed by
// the route itself; the old ones move to it as they are touched.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export async function run<T = any>(
  handler: Handler,
  request: Request,
  options: { ip?: string; params?: Record<string, string> } = {},
): Promise<Outcome<T>> {
  let value: unknown;
  try {
    value = await handler(routeArgs(request, options.params, options));
  } catch (thrown) {
    value = thrown;
  }
  // What root's sessionWrites middleware does after a request that may have written, so that a
  // test's next call reads the person's write, as their next request would (decision 166).
  if (request.method !== "GET" && request.method !== "HEAD") await sessionWriteDone(request);
  if (value instanceof Response) {
    const text = await value.text();
    let data: unknown = text;
    try {
      data = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return {
      status: value.status,
      headers: value.headers,
      data: data as T,
      location: value.headers.get("location"),
      setCookies: value.headers.getSetCookie(),
    };
  }
  if (value && typeof value === "object" && (value as DataWithResponseInit<unknown>).type === "DataWithResponseInit") {
    const wrapped = value as DataWithResponseInit<T>;
    const headers = new Headers(wrapped.init?.headers);
    return {
      status: wrapped.init?.status ?? 200,
      headers,
      data: wrapped.data,
      location: headers.get("location"),
      setCookies: headers.getSetCookie(),
    };
  }
  if (value instanceof Error) throw value;
  return { status: 200, headers: new Headers(), data: value as T, location: null, setCookies: [] };
}

/**
 * Runs a loader or action with route params and gives its data typed as the route declares it: a
 * returned or thrown Response gives its text (no data of the route's own), as a redirect has none.
 */
export async function callRoute<H extends Handler>(
  handler: H,
  request: Request,
  params: Record<string, string> = {},
): Promise<{ status: number; location: string | null; data: RouteData<H> }> {
  let value: unknown;
  try {
    value = await handler(routeArgs(request, params));
  } catch (thrown) {
    value = thrown;
  }
  if (request.method !== "GET" && request.method !== "HEAD") await sessionWriteDone(request);
  if (value instanceof Response)
    return { status: value.status, location: value.headers.get("location"), data: (await value.text()) as RouteData<H> };
  const wrapped = value as { type?: string; data?: unknown; init?: { status?: number; headers?: HeadersInit } };
  if (wrapped && wrapped.type === "DataWithResponseInit")
    return {
      status: wrapped.init?.status ?? 200,
      location: new Headers(wrapped.init?.headers).get("location"),
      data: wrapped.data as RouteData<H>,
    };
  if (value instanceof Error) throw value;
  return { status: 200, location: null, data: value as RouteData<H> };
}

/** What a refused form post gives back: a message per field, and the values to show again. */
export interface FormRefusal {
  errors: Record<string, string>;
  values: Record<string, string>;
}

/** The refusal in a form post's answer, for actions that also answer other things; any other answer fails the test. */
export function refusalOf(outcome: { data: unknown }): FormRefusal {
  const { data } = outcome;
  if (typeof data !== "object" || data === null || !("errors" in data)) throw new Error(`Expected a refusal, got ${JSON.stringify(data)}`);
  return data as FormRefusal;
}

/** The `name=value` pairs of Set-Cookie headers, ready for a Cookie header. */
export function cookieHeader(setCookies: string[], previous = "") {
  const jar = new Map(
    previous
      .split(";")
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => [p.split("=")[0]!, p] as const),
  );
  for (const header of setCookies) {
    const pair = header.split(";")[0]!;
    const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
    if (value === "" || /max-age=0/i.test(header)) jar.delete(name);
    else jar.set(name, pair);
  }
  return [...jar.values()].join("; ");
}
