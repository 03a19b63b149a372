import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import zlib from "node:zlib";

/**
 * The Graph client's HTTP calls over node:http and node:https with keep-alive agents (decision
 * 024): a pool of sockets per origin sized to the dispatcher's calls in flight, one timer per call
 * (setTimeout, then req.destroy), the answer read whole up to a size limit. fetch (undici) with an
 * AbortSignal.timeout per call was 41% of the server's CPU at 1,000 sends a second.
 *
 * A failure says whether the request may have reached the other side: `sent` is false only when the
 * connection never opened (refused, no such host, a connect that timed out, a TLS handshake that
 * failed), so the request cannot have left. Anything after the connection opened is in doubt.
 */

/** Sockets per origin: the dispatcher's Graph calls in flight (IN_FLIGHT in messaging/dispatcher.ts). */
export const GRAPH_MAX_SOCKETS = 64;
/**
 * An idle pooled socket is closed after this long. Servers close idle keep-alive connections too
 * (Node's default is 5 s): a request written on a socket the server is closing at that moment is
 * lost in doubt, so ours must give up first.
 */
export const IDLE_SOCKET_MS = 4000;
/** The largest answer read (a page of 100 templates with their components is well under 1 MB). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export type TransportFailure = "refused" | "timeout" | "reset" | "too_large" | "bad_encoding";

export class TransportError extends Error {
  readonly kind: TransportFailure;
  /** Whether the request may have reached the server: the connection had opened. */
  readonly sent: boolean;
  readonly code?: string;
  constructor(kind: TransportFailure, message: string, options: { sent: boolean; code?: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "TransportError";
    this.kind = kind;
    this.sent = options.sent;
    this.code = options.code;
  }
}

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  maxBytes?: number;
}

export interface TransportResponse {
  status: number;
  /** A response header, lower-case name; the first value when repeated. */
  header(name: string): string | undefined;
  /** The body as text (UTF-8), decompressed if the server compressed it unasked. */
  text: string;
}

export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Closes the pooled sockets (tests, shutdown). */
  close(): void;
}

// long: a factory of two pooled agents and the request that uses them; the request is the long part, a state machine (below)
export function createHttpTransport(options: { maxSockets?: number; idleSocketMs?: number } = {}): Transport {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? GRAPH_MAX_SOCKETS,
    maxFreeSockets: options.maxSockets ?? GRAPH_MAX_SOCKETS,
    // The idle timeout of a pooled socket; while a request uses it, only our own timer counts.
    timeout: options.idleSocketMs ?? IDLE_SOCKET_MS,
    scheduling: "lifo" as const,
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  // long: node:http's request, its timers and its stream events are one state machine; its closures share the socket, the timer and the answer being read
  function request({ method, url, headers, body, timeoutMs, maxBytes = MAX_ANSWER_BYTES }: TransportRequest): Promise<TransportResponse> {
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:")
      return Promise.reject(new TransportError("refused", `Not an http(s) URL: ${url.protocol}`, { sent: false }));
    const payload = typeof body === "string" ? Buffer.from(body) : body;
    const outgoing: Record<string, string> = { ...headers };
    if (payload) outgoing["Content-Length"] = String(payload.byteLength);
    else if (method === "POST" || method === "PUT") outgoing["Content-Length"] = "0";

    return new Promise<TransportResponse>((resolve, reject) => {
      let connected = false;
      let done = false;
      const finish = (error: TransportError | undefined, answer?: TransportResponse) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (error) {
          // The socket is not reused after a failure.
          req.destroy();
          reject(error);
        } else resolve(answer!);
      };
      const failed = (cause: unknown) => {
        const code = (cause as { code?: unknown } | undefined)?.code;
        const codeText = typeof code === "string" ? code : undefined;
        if (!connected)
          return new TransportError("refused", `connection failed${codeText ? ` (${codeText})` : ""}`, {
            sent: false,
            code: codeText,
            cause,
          });
        return new TransportError("reset", `connection lost${codeText ? ` (${codeText})` : ""}`, { sent: true, code: codeText, cause });
      };

      const req = (secure ? https : http).request(
        {
          agent: secure ? httpsAgent : httpAgent,
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port || undefined,
          method,
          path: `${url.pathname}${url.search}`,
          headers: outgoing,
        },
        (res) => {
          connected = true;
          const chunks: Buffer[] = [];
          let size = 0;
          const declared = Number(res.headers["content-length"]);
          if (Number.isFinite(declared) && declared > maxBytes) {
            finish(new TransportError("too_large", `answer of ${declared} bytes is over the limit of ${maxBytes}`, { sent: true }));
            return;
          }
          res.on("data", (chunk: Buffer) => {
            size += chunk.byteLength;
            if (size > maxBytes) {
              finish(new TransportError("too_large", `answer over the limit of ${maxBytes} bytes`, { sent: true }));
              return;
            }
            chunks.push(chunk);
          });
          res.on("error", (cause) => finish(failed(cause)));
          res.on("close", () => {
            if (!res.complete) finish(new TransportError("reset", "connection lost while reading the answer", { sent: true }));
          });
          res.on("end", () => {
            if (done) return;
            let bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
            const encoding = String(res.headers["content-encoding"] ?? "identity").toLowerCase();
            if (encoding !== "identity" && bytes.byteLength) {
              try {
                bytes = decompress(encoding, bytes, maxBytes);
              } catch (cause) {
                finish(new TransportError("bad_encoding", `answer in ${encoding} that could not be decoded`, { sent: true, cause }));
                return;
              }
            }
            const all = res.headers;
            finish(undefined, {
              status: res.statusCode ?? 0,
              header: (name) => {
                const value = all[name];
                return Array.isArray(value) ? value[0] : value;
              },
              text: bytes.toString("utf8"),
            });
          });
        },
      );
      const timer = setTimeout(() => {
        finish(
          new TransportError("timeout", `no answer within ${timeoutMs} ms${connected ? "" : " (the connection never opened)"}`, {
            sent: connected,
          }),
        );
      }, timeoutMs);
      req.on("error", (cause) => finish(failed(cause)));
      req.on("socket", (socket: Socket) => {
        // A pooled socket is open already; a new one once connected (for TLS, once the handshake is done).
        if (req.reusedSocket) connected = true;
        else
          socket.once(secure ? "secureConnect" : "connect", () => {
            connected = true;
          });
      });
      req.end(payload);
    });
  }

  return {
    request,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

function decompress(encoding: string, bytes: Buffer, maxBytes: number): Buffer {
  const options = { maxOutputLength: maxBytes };
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.gunzipSync(bytes, options);
  if (encoding === "deflate") return zlib.inflateSync(bytes, options);
  if (encoding === "br") return zlib.brotliDecompressSync(bytes, options);
  throw new Error(`unknown content-encoding ${encoding}`);
}
