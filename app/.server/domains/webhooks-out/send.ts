import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";

/** Connecting, sending and the answer's status and first kilobyte: all within this. */
export const DELIVERY_TIMEOUT_MS = 5000;
/** How much of an answer is kept for the page. */
export const RESPONSE_KEEP_BYTES = 1024;

export interface SendOutcome {
  /** The HTTP status, when an answer came. */
  status: number | null;
  /** The answer's first kilobyte, as text. */
  body: string | null;
  /** Why it failed without an answer (or why the answer is not accepted), in words. */
  error: string | null;
}

/**
 * POSTs `body` to `url`, connecting to `address` only: the lookup Node would make is replaced by one
 * that answers the address the SSRF check passed, so a second DNS answer can never be used (no
 * rebinding). The Host header and TLS server name stay the URL's host. Redirects are not followed
 * (Node's client never does): a 3xx is a failure like any other non-2xx.
 */
export function postToAddress(
  url: URL,
  address: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<SendOutcome> {
  const family = isIP(address);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const text = () => {
      if (status === null) return null;
      // PostgreSQL text holds no NUL; a cut multi-byte character becomes U+FFFD.
      return Buffer.concat(chunks).subarray(0, RESPONSE_KEEP_BYTES).toString("utf8").replaceAll("\u0000", "");
    };
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ status, body: text(), error });
    };
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: pinned,
        // One connection per delivery: a pooled socket could belong to an address checked earlier.
        agent: false,
        ...(url.protocol === "https:" && !isIP(host) ? { servername: host } : {}),
      },
      (response) => {
        status = response.statusCode ?? null;
        const done = () => finish(redirectError(status, response.headers.location));
        response.on("data", (chunk: Buffer) => {
          if (kept < RESPONSE_KEEP_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          if (kept >= RESPONSE_KEEP_BYTES) done();
        });
        response.on("end", done);
        response.on("error", done);
        response.on("close", done);
      },
    );
    const timer = setTimeout(
      () => finish(status === null ? `No answer within ${timeoutMs / 1000} seconds.` : redirectError(status, undefined)),
      timeoutMs,
    );
    request.on("error", (error) => finish(describeError(error)));
    request.end(body);
  });
}

function redirectError(status: number | null, location: string | undefined) {
  if (status === null || status < 300 || status > 399) return null;
  return `Redirect not followed${location ? ` (to ${location.slice(0, 200)})` : ""}.`;
}

/** A connection error in words for the page. */
export function describeError(error: unknown) {
  const code = (error as { code?: string } | null)?.code ?? "";
  switch (code) {
    case "ECONNREFUSED":
      return "Connection refused.";
    case "ECONNRESET":
    case "EPIPE":
      return "The connection was closed before an answer.";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "The host could not be reached.";
    case "ETIMEDOUT":
      return "The connection timed out.";
    case "HPE_INVALID_CONSTANT":
    case "HPE_INVALID_STATUS":
    case "HPE_INVALID_HEADER_TOKEN":
      return "The answer was not valid HTTP.";
  }
  if (/CERT|SSL|TLS|ERR_SSL/i.test(code)) return `The TLS certificate or handshake was refused (${code}).`;
  return `The request failed${code ? ` (${code})` : ""}.`;
}
