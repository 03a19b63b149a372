import { createRequestContext } from "~/.server/infrastructure/http/context";
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

// Loader and action argument types differ per route; the test harness supplies what they all read.
type Handler = (args: any) => unknown;

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
export async function run<T = any>(handler: Handler, request: Request, options: { ip?: string } = {}): Promise<Outcome<T>> {
  let value: unknown;
  try {
    value = await handler(routeArgs(request, {}, options));
  } catch (thrown) {
    value = thrown;
  }
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
