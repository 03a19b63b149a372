/**
 * How a Graph call fails: Meta's error envelope (GraphApiError), no usable answer (GraphNetworkError),
 * a media file over the caller's limit; which failures a retry may cure and how long to wait first.
 */

/** A Graph error envelope, kept whole: code, subcode and fbtrace_id are what Meta support asks for. */
export class GraphApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly subcode?: number;
  readonly type?: string;
  readonly fbtraceId?: string;
  readonly isTransient: boolean;
  readonly step: string;
  /** Meta's reason in words: `error_data.details` ("body: number of localizable_params (1) does not match …"). */
  readonly details?: string;
  /** `error_user_title` / `error_user_msg`: the text Meta means for people. */
  readonly userTitle?: string;
  readonly userMessage?: string;

  constructor(init: {
    step: string;
    status: number;
    code: number;
    subcode?: number;
    type?: string;
    message: string;
    fbtraceId?: string;
    isTransient?: boolean;
    details?: string;
    userTitle?: string;
    userMessage?: string;
  }) {
    super(init.message);
    this.name = "GraphApiError";
    this.step = init.step;
    this.status = init.status;
    this.code = init.code;
    this.subcode = init.subcode;
    this.type = init.type;
    this.fbtraceId = init.fbtraceId;
    this.isTransient = init.isTransient ?? false;
    this.details = init.details;
    this.userTitle = init.userTitle;
    this.userMessage = init.userMessage;
  }

  /** "(#100/33) message [fbtrace_id X]": what the activity log and support need. */
  get summary() {
    return `(#${this.code}${this.subcode ? `/${this.subcode}` : ""}) ${this.message}${this.fbtraceId ? ` [fbtrace_id ${this.fbtraceId}]` : ""}`;
  }

  /** A retry can succeed: Meta marks the error transient, its code is a throttling or temporary one (RETRYABLE_CODES), or a 5xx came without a code. */
  get retryable() {
    return this.isTransient || RETRYABLE_CODES.has(this.code) || (this.code === 0 && this.status >= 500);
  }
}

/** The request never got a Graph answer: timeout, refused connection, or a body that is not Graph's. */
export class GraphNetworkError extends Error {
  readonly step: string;
  /**
   * Whether Meta may have acted on the request: false only when it never left (connection refused,
   * no such host). A timeout or a cut connection after sending is in doubt.
   */
  readonly inDoubt: boolean;
  constructor(step: string, message: string, options?: { cause?: unknown; inDoubt?: boolean }) {
    super(message, options);
    this.name = "GraphNetworkError";
    this.step = step;
    this.inDoubt = options?.inDoubt ?? true;
  }
}

/** Connection errors that mean the request never reached the other side. */
export const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

// 1 and 2: unknown/service errors; 4, 17, 32, 613, 80007, 130429: rate limits and throughput;
// 131000, 131016, 133004: Cloud API temporarily unavailable.
const RETRYABLE_CODES = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131016, 133004]);

/** A media download over the caller's limit: refused before (Content-Length) or while reading. */
export class MediaTooLargeError extends Error {
  constructor(
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`The media file is larger than ${maxBytes} bytes (at least ${size})`);
    this.name = "MediaTooLargeError";
  }
}

/** An answer from either transport: what parsing needs of it. */
export interface Answer {
  status: number;
  header(name: string): string | undefined;
}

export function fetchAnswer(response: Response): Answer {
  return { status: response.status, header: (name) => response.headers.get(name) ?? undefined };
}

/** Meta's error envelope (or a bare non-2xx) as a GraphApiError; undefined for a success. */
export function graphErrorOf(step: string, response: Answer, parsed: unknown): GraphApiError | undefined {
  const envelope = (parsed as { error?: Record<string, unknown> } | null)?.error;
  if (envelope && typeof envelope === "object") {
    const text = (key: string) => (typeof envelope[key] === "string" ? (envelope[key] as string) : undefined);
    const data = envelope.error_data;
    const details =
      data && typeof data === "object" && typeof (data as { details?: unknown }).details === "string"
        ? (data as { details: string }).details
        : undefined;
    const error = new GraphApiError({
      step,
      status: response.status,
      code: typeof envelope.code === "number" ? envelope.code : 0,
      subcode: typeof envelope.error_subcode === "number" ? envelope.error_subcode : undefined,
      type: text("type"),
      message: text("message") ?? `Graph ${step} failed`,
      fbtraceId: text("fbtrace_id") ?? response.header("x-fb-trace-id"),
      isTransient: envelope.is_transient === true,
      details,
      userTitle: text("error_user_title"),
      userMessage: text("error_user_msg"),
    });
    (error as { retryAfterMs?: number }).retryAfterMs = retryAfterHeader(response.header("retry-after"));
    return error;
  }
  if (response.status < 200 || response.status > 299)
    return new GraphApiError({ step, status: response.status, code: 0, message: `Graph ${step} answered HTTP ${response.status}` });
  return undefined;
}

function retryAfterHeader(value: string | undefined) {
  if (!value) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

export function retryDelay(error: unknown, attempt: number, base: number) {
  const hinted = (error as { retryAfterMs?: number }).retryAfterMs;
  const exponential = base * 2 ** (attempt - 1);
  const jittered = exponential / 2 + Math.random() * (exponential / 2);
  // Never sleep long inside a user's request: a longer Retry-After becomes a failure instead.
  return Math.min(hinted ?? jittered, 5_000);
}

/** One line for any failure of a Graph call, for logs and the activity log. */
export function describeGraphFailure(error: unknown) {
  if (error instanceof GraphApiError) return `Meta answered ${error.step}: ${error.summary}`;
  return error instanceof Error ? error.message : String(error);
}
