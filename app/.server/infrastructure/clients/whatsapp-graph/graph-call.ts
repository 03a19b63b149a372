import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../log";
import { createHttpTransport, TransportError, type Transport } from "./http-transport";
import type { GraphCallRecord } from "./graph-call-log";
import {
  describeGraphFailure,
  fetchAnswer,
  GraphApiError,
  graphErrorOf,
  GraphNetworkError,
  NEVER_SENT,
  retryDelay,
  type Answer,
} from "./graph-errors";

/**
 * One Graph call, whatever the area: the URL under the configured base and version, the token, the
 * transport (keep-alive node:http/node:https agents for JSON, decision 024; fetch for multipart
 * uploads and media downloads), Meta's error envelope, retries, and the call log. The areas
 * (graph-tokens.ts, graph-templates.ts, …) say only what they ask and how they read the answer.
 */

export interface GraphClientOptions {
  baseUrl: string;
  version: string;
  appId: string;
  appSecret: string;
  timeoutMs: number;
  /** Attempts for a retryable failure, the first included. */
  attempts?: number;
  /** First backoff delay; it doubles per attempt, with jitter, and honours Retry-After. */
  backoffMs?: number;
  /** Every call through this fetch instead (tests script the answers this way). */
  fetch?: typeof fetch;
  /** JSON calls through this transport; by default the process's keep-alive agents. */
  transport?: Transport;
  /** Where each attempt of a call is recorded (graph_call_log), for the steps it `records`. */
  callLog?: { records(step: string): boolean; record(call: GraphCallRecord): void };
}

export type Method = "GET" | "POST" | "DELETE";

export interface CallOptions {
  step: string;
  method: Method;
  path: string;
  query?: Record<string, string>;
  token?: string;
  /** The Resumable Upload API's own scheme for the token: `Authorization: OAuth <token>`. */
  authScheme?: "Bearer" | "OAuth";
  body?: Record<string, unknown>;
  /** multipart/form-data (a media upload); fetch sets the boundary. */
  form?: FormData;
  /** Raw bytes sent as the body, from `offset` of the file on (an upload session's POST). */
  raw?: { bytes: Uint8Array; offset: number };
  /** Safe to send again after a timeout (reads, and writes Meta treats as idempotent). */
  idempotent: boolean;
}

let sharedTransport: Transport | undefined;

/** The process's keep-alive agents for Graph, made on first use. */
function defaultTransport() {
  return (sharedTransport ??= createHttpTransport());
}

/** The calls of one client: its options, its transport, its retries. */
export class GraphCaller {
  readonly options: GraphClientOptions;
  readonly doFetch: typeof fetch;
  /** Attempts for a retryable failure, the first included. */
  readonly attempts: number;
  readonly backoffMs: number;
  private readonly transport: Transport | undefined;
  private readonly base: string;

  constructor(options: GraphClientOptions) {
    this.options = options;
    this.doFetch = options.fetch ?? fetch;
    // An injected fetch takes every call, as before the transport existed.
    this.transport = options.fetch ? undefined : (options.transport ?? defaultTransport());
    this.attempts = options.attempts ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    this.base = `${options.baseUrl.replace(/\/$/, "")}/${options.version}`;
  }

  /** A fetch that never got an answer: timed out or unreachable. */
  unreachable(step: string, cause: unknown) {
    const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
    const code = (cause as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    return new GraphNetworkError(
      step,
      timedOut ? `Graph ${step} timed out after ${this.options.timeoutMs} ms` : `Graph ${step} unreachable`,
      {
        cause,
        inDoubt: timedOut || typeof code !== "string" || !NEVER_SENT.has(code),
      },
    );
  }

  call<T>(request: CallOptions): Promise<T> {
    return this.withRetries(request.step, request.idempotent, () => this.callOnce<T>(request));
  }

  /** Retries a retryable Graph error, and a lost answer when the request is idempotent. */
  async withRetries<T>(step: string, idempotent: boolean, once: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once();
      } catch (error) {
        const retry =
          attempt < this.attempts &&
          ((error instanceof GraphApiError && error.retryable) || (error instanceof GraphNetworkError && idempotent));
        if (!retry) throw error;
        const wait = retryDelay(error, attempt, this.backoffMs);
        log().warn({ step, attempt, wait, error: describeGraphFailure(error) }, "graph call failed; retrying");
        await sleep(wait);
      }
    }
  }

  /** One attempt, recorded in the call log when the step is one it keeps (never message sends). */
  async callOnce<T>(request: CallOptions): Promise<T> {
    const callLog = this.options.callLog;
    if (!callLog?.records(request.step)) return this.exchange<T>(request, {});
    const seen: { status?: number } = {};
    const started = performance.now();
    let error: string | null = null;
    try {
      return await this.exchange<T>(request, seen);
    } catch (failure) {
      error = describeGraphFailure(failure);
      throw failure;
    } finally {
      callLog.record({
        method: request.method,
        path: request.path,
        status: seen.status ?? null,
        durationMs: performance.now() - started,
        error,
      });
    }
  }

  /** `seen.status` is set as soon as an answer arrives, whatever it says. */
  private async exchange<T>(request: CallOptions, seen: { status?: number }): Promise<T> {
    const { step, path, query, token, authScheme, body, form, raw } = request;
    const url = new URL(`${this.base}/${path}`);
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (token) headers.Authorization = `${authScheme ?? "Bearer"} ${token}`;
    if (body) headers["Content-Type"] = "application/json";
    if (raw) headers.file_offset = String(raw.offset);
    const { answer, text } =
      this.transport && !form
        ? await this.overTransport(this.transport, request, url, headers, seen)
        : await this.overFetch(request, url, headers);
    seen.status = answer.status;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new GraphNetworkError(step, `Graph ${step} answered HTTP ${answer.status} with a body that is not JSON`);
    }
    const error = graphErrorOf(step, answer, parsed);
    if (error) throw error;
    return parsed as T;
  }

  private async overTransport(
    transport: Transport,
    { step, method, body, raw }: CallOptions,
    url: URL,
    headers: Record<string, string>,
    seen: { status?: number },
  ): Promise<{ answer: Answer; text: string }> {
    let answer: Answer;
    let text: string;
    try {
      const response = await transport.request({
        method,
        url,
        headers,
        body: body ? JSON.stringify(body) : raw ? raw.bytes : undefined,
        timeoutMs: this.options.timeoutMs,
      });
      answer = response;
      text = response.text;
      seen.status = response.status;
    } catch (cause) {
      throw this.transportFailure(step, cause);
    }
    // fetch refused redirects (redirect: "error"); a redirect is not Graph's answer either.
    if (answer.status >= 300 && answer.status < 400)
      throw new GraphNetworkError(step, `Graph ${step} answered a redirect (HTTP ${answer.status}), which is not followed`);
    return { answer, text };
  }

  private async overFetch({ step, method, body, form, raw }: CallOptions, url: URL, headers: Record<string, string>) {
    let response: Response;
    try {
      response = await this.doFetch(url, {
        method,
        headers,
        body: body ? JSON.stringify(body) : form ? form : raw ? (raw.bytes as Uint8Array<ArrayBuffer>) : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: "error",
      });
    } catch (cause) {
      throw this.unreachable(step, cause);
    }
    return { answer: fetchAnswer(response), text: await response.text() };
  }

  /** A transport call that got no usable answer: in doubt unless the connection never opened. */
  private transportFailure(step: string, cause: unknown) {
    if (!(cause instanceof TransportError)) return new GraphNetworkError(step, `Graph ${step} failed`, { cause, inDoubt: true });
    const what =
      cause.kind === "timeout"
        ? `timed out after ${this.options.timeoutMs} ms`
        : cause.kind === "refused"
          ? `unreachable: ${cause.message}`
          : cause.kind === "too_large"
            ? `answered too much: ${cause.message}`
            : cause.kind === "bad_encoding"
              ? `answered unreadably: ${cause.message}`
              : `cut off: ${cause.message}`;
    return new GraphNetworkError(step, `Graph ${step} ${what}`, { cause, inDoubt: cause.sent });
  }
}
