import { setTimeout as sleep } from "node:timers/promises";
import { env } from "../../config/env";
import { log } from "../../log";
import { createHttpTransport, TransportError, type Transport } from "./http-transport";
import { isRecordedStep, recordGraphCall, type GraphCallRecord } from "./graph-call-log";

/**
 * Meta's Graph API for WhatsApp Business onboarding and sending. The base URL and version come from
 * configuration, so the same client talks to graph.facebook.com or to the local sandbox. JSON calls
 * go over keep-alive node:http/node:https agents (http-transport.ts, decision 024); multipart
 * uploads and media downloads over fetch.
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
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

// 1 and 2: unknown/service errors; 4, 17, 32, 613, 80007, 130429: rate limits and throughput;
// 131000, 131016, 133004: Cloud API temporarily unavailable.
/** An upload session's id as Meta answers it: `upload:<key>`, with `?sig=<signature>` at times. */
const UPLOAD_ID = /^upload:[A-Za-z0-9_\-=:.%]+(\?sig=[A-Za-z0-9_\-=%]+)?$/;

const RETRYABLE_CODES = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131016, 133004]);

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

export interface TokenExchange {
  accessToken: string;
  expiresIn?: number;
}

export interface TokenDebugInfo {
  isValid: boolean;
  appId?: string;
  type?: string;
  /** Unix seconds; 0 or absent means the token does not expire. */
  expiresAt?: number;
  scopes: string[];
  granularScopes: { scope: string; targetIds: string[] }[];
  error?: { code?: number; message?: string };
}

export interface GraphPhoneNumber {
  id: string;
  displayPhoneNumber: string;
  verifiedName?: string;
  qualityRating?: string;
  codeVerificationStatus?: string;
  status?: string;
  platformType?: string;
  messagingLimit?: string;
}

export interface GraphWaba {
  id: string;
  name?: string;
  currency?: string;
  timezoneId?: string;
}

const PHONE_FIELDS = [
  "id",
  "display_phone_number",
  "verified_name",
  "quality_rating",
  "code_verification_status",
  "status",
  "platform_type",
  "whatsapp_business_manager_messaging_limit",
].join(",");

type Method = "GET" | "POST" | "DELETE";

interface CallOptions {
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

/** An answer from either transport: what parsing needs of it. */
interface Answer {
  status: number;
  header(name: string): string | undefined;
}

export function createGraphClient(options: GraphClientOptions) {
  const doFetch = options.fetch ?? fetch;
  // An injected fetch takes every call, as before the transport existed.
  const transport = options.fetch ? undefined : (options.transport ?? defaultTransport());
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  const base = `${options.baseUrl.replace(/\/$/, "")}/${options.version}`;

  /** A fetch that never got an answer: timed out or unreachable. */
  function unreachable(step: string, cause: unknown) {
    const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
    const code = (cause as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    return new GraphNetworkError(step, timedOut ? `Graph ${step} timed out after ${options.timeoutMs} ms` : `Graph ${step} unreachable`, {
      cause,
      inDoubt: timedOut || typeof code !== "string" || !NEVER_SENT.has(code),
    });
  }

  function call<T>(request: CallOptions): Promise<T> {
    return withRetries(request.step, request.idempotent, () => callOnce<T>(request));
  }

  /** Retries a retryable Graph error, and a lost answer when the request is idempotent. */
  async function withRetries<T>(step: string, idempotent: boolean, once: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once();
      } catch (error) {
        const retry =
          attempt < attempts && ((error instanceof GraphApiError && error.retryable) || (error instanceof GraphNetworkError && idempotent));
        if (!retry) throw error;
        const wait = retryDelay(error, attempt, backoffMs);
        log().warn({ step, attempt, wait, error: describeGraphFailure(error) }, "graph call failed; retrying");
        await sleep(wait);
      }
    }
  }

  /** One attempt, recorded in the call log when the step is one it keeps (never message sends). */
  async function callOnce<T>(request: CallOptions): Promise<T> {
    const callLog = options.callLog;
    if (!callLog?.records(request.step)) return exchange<T>(request, {});
    const seen: { status?: number } = {};
    const started = performance.now();
    let error: string | null = null;
    try {
      return await exchange<T>(request, seen);
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
  async function exchange<T>(
    { step, method, path, query, token, authScheme, body, form, raw }: CallOptions,
    seen: { status?: number },
  ): Promise<T> {
    const url = new URL(`${base}/${path}`);
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (token) headers.Authorization = `${authScheme ?? "Bearer"} ${token}`;
    if (body) headers["Content-Type"] = "application/json";
    if (raw) headers.file_offset = String(raw.offset);
    let answer: Answer;
    let text: string;
    if (transport && !form) {
      try {
        const response = await transport.request({
          method,
          url,
          headers,
          body: body ? JSON.stringify(body) : raw ? raw.bytes : undefined,
          timeoutMs: options.timeoutMs,
        });
        answer = response;
        text = response.text;
        seen.status = response.status;
      } catch (cause) {
        throw transportFailure(step, cause);
      }
      // fetch refused redirects (redirect: "error"); a redirect is not Graph's answer either.
      if (answer.status >= 300 && answer.status < 400)
        throw new GraphNetworkError(step, `Graph ${step} answered a redirect (HTTP ${answer.status}), which is not followed`);
    } else {
      let response: Response;
      try {
        response = await doFetch(url, {
          method,
          headers,
          body: body ? JSON.stringify(body) : form ? form : raw ? (raw.bytes as Uint8Array<ArrayBuffer>) : undefined,
          signal: AbortSignal.timeout(options.timeoutMs),
          redirect: "error",
        });
      } catch (cause) {
        throw unreachable(step, cause);
      }
      answer = fetchAnswer(response);
      text = await response.text();
    }
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

  /** A transport call that got no usable answer: in doubt unless the connection never opened. */
  function transportFailure(step: string, cause: unknown) {
    if (!(cause instanceof TransportError)) return new GraphNetworkError(step, `Graph ${step} failed`, { cause, inDoubt: true });
    const what =
      cause.kind === "timeout"
        ? `timed out after ${options.timeoutMs} ms`
        : cause.kind === "refused"
          ? `unreachable: ${cause.message}`
          : cause.kind === "too_large"
            ? `answered too much: ${cause.message}`
            : cause.kind === "bad_encoding"
              ? `answered unreadably: ${cause.message}`
              : `cut off: ${cause.message}`;
    return new GraphNetworkError(step, `Graph ${step} ${what}`, { cause, inDoubt: cause.sent });
  }

  return {
    /** Embedded Signup: the 30-second code becomes the customer's business token. */
    async exchangeCode(code: string): Promise<TokenExchange> {
      const answer = await call<{ access_token?: string; expires_in?: number }>({
        step: "oauth",
        method: "GET",
        path: "oauth/access_token",
        query: { client_id: options.appId, client_secret: options.appSecret, code },
        // A code is single-use: a second try after a lost answer could only fail.
        idempotent: false,
      });
      if (!answer.access_token) throw new GraphNetworkError("oauth", "Graph oauth answered without an access_token");
      return { accessToken: answer.access_token, expiresIn: typeof answer.expires_in === "number" ? answer.expires_in : undefined };
    },

    async debugToken(inputToken: string): Promise<TokenDebugInfo> {
      const answer = await call<{ data?: Record<string, unknown> }>({
        step: "debug_token",
        method: "GET",
        path: "debug_token",
        query: { input_token: inputToken, access_token: `${options.appId}|${options.appSecret}` },
        idempotent: true,
      });
      const data = answer.data ?? {};
      const granular = Array.isArray(data.granular_scopes) ? (data.granular_scopes as { scope?: unknown; target_ids?: unknown }[]) : [];
      return {
        isValid: data.is_valid === true,
        appId: typeof data.app_id === "string" ? data.app_id : undefined,
        type: typeof data.type === "string" ? data.type : undefined,
        expiresAt: typeof data.expires_at === "number" ? data.expires_at : undefined,
        scopes: Array.isArray(data.scopes) ? data.scopes.filter((s): s is string => typeof s === "string") : [],
        granularScopes: granular.map((g) => ({
          scope: String(g.scope ?? ""),
          targetIds: Array.isArray(g.target_ids) ? g.target_ids.map(String) : [],
        })),
        error: data.error as TokenDebugInfo["error"],
      };
    },

    async getWaba(wabaId: string, token: string): Promise<GraphWaba> {
      const answer = await call<{ id: string; name?: string; currency?: string; timezone_id?: string }>({
        step: "waba",
        method: "GET",
        path: encodeURIComponent(wabaId),
        query: { fields: "id,name,currency,timezone_id" },
        token,
        idempotent: true,
      });
      return { id: answer.id, name: answer.name, currency: answer.currency, timezoneId: answer.timezone_id };
    },

    async subscribeApp(wabaId: string, token: string) {
      await call<{ success?: boolean }>({
        step: "subscribed_apps",
        method: "POST",
        path: `${encodeURIComponent(wabaId)}/subscribed_apps`,
        token,
        idempotent: true,
      });
    },

    async unsubscribeApp(wabaId: string, token: string) {
      await call<{ success?: boolean }>({
        step: "subscribed_apps",
        method: "DELETE",
        path: `${encodeURIComponent(wabaId)}/subscribed_apps`,
        token,
        idempotent: true,
      });
    },

    async listPhoneNumbers(wabaId: string, token: string): Promise<GraphPhoneNumber[]> {
      const numbers: GraphPhoneNumber[] = [];
      let after: string | undefined;
      // Pages of 100; a WABA holds at most a few dozen numbers, the bound only stops a runaway loop.
      for (let page = 0; page < 20; page++) {
        const answer = await call<{ data?: Record<string, unknown>[]; paging?: { cursors?: { after?: string }; next?: string } }>({
          step: "phone_numbers",
          method: "GET",
          path: `${encodeURIComponent(wabaId)}/phone_numbers`,
          query: { fields: PHONE_FIELDS, limit: "100", ...(after ? { after } : {}) },
          token,
          idempotent: true,
        });
        numbers.push(...(answer.data ?? []).map(toPhoneNumber));
        after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
        if (!after) break;
      }
      return numbers;
    },

    async getPhoneNumber(phoneNumberId: string, token: string): Promise<GraphPhoneNumber> {
      const answer = await call<Record<string, unknown>>({
        step: "phone_number",
        method: "GET",
        path: encodeURIComponent(phoneNumberId),
        query: { fields: PHONE_FIELDS },
        token,
        idempotent: true,
      });
      return toPhoneNumber(answer);
    },

    /** Cloud API registration with the two-step verification PIN (10 per number per 72 h). */
    async registerPhoneNumber(phoneNumberId: string, token: string, pin: string) {
      await call<{ success?: boolean }>({
        step: "register",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/register`,
        body: { messaging_product: "whatsapp", pin },
        token,
        // Each call counts against the 72-hour limit: never repeat one whose answer was lost.
        idempotent: false,
      });
    },

    /**
     * Meta's Resumable Upload API: a session for the file (`POST /{app-id}/uploads`), then its
     * bytes (`POST /{upload-id}` with `file_offset`), answering the handle ("4::...") a media
     * header's `example.header_handle` carries. A send whose answer was lost (or that Meta
     * refused as transient) resumes from the offset `GET /{upload-id}` reports, never from 0.
     */
    async uploadFile(token: string, file: { fileName: string; contentType: string; bytes: Uint8Array }): Promise<string> {
      const session = await call<{ id?: unknown }>({
        step: "upload.create",
        method: "POST",
        path: `${encodeURIComponent(options.appId)}/uploads`,
        query: { file_name: file.fileName, file_length: String(file.bytes.byteLength), file_type: file.contentType },
        token,
        // A repeated session is only an unused one.
        idempotent: true,
      });
      const id = typeof session.id === "string" ? session.id : "";
      if (!UPLOAD_ID.test(id)) throw new GraphNetworkError("upload.create", "Graph upload.create answered without an upload session id");
      let offset = 0;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await callOnce<{ h?: unknown }>({
            step: "upload.send",
            method: "POST",
            path: id,
            token,
            authScheme: "OAuth",
            raw: { bytes: file.bytes.subarray(offset), offset },
            idempotent: false,
          });
          if (typeof answer.h !== "string" || !answer.h)
            throw new GraphNetworkError("upload.send", "Graph upload.send answered without a handle (h)");
          return answer.h;
        } catch (error) {
          const resumable =
            attempt < attempts &&
            ((error instanceof GraphApiError && error.retryable) ||
              (error instanceof GraphNetworkError && !/without a handle/.test(error.message)));
          if (!resumable) throw error;
          const wait = retryDelay(error, attempt, backoffMs);
          log().warn({ step: "upload.send", attempt, wait, error: describeGraphFailure(error) }, "upload cut short; resuming");
          await sleep(wait);
          const status = await call<{ file_offset?: unknown }>({
            step: "upload.status",
            method: "GET",
            path: id,
            token,
            authScheme: "OAuth",
            idempotent: true,
          });
          const at = Number(status.file_offset);
          if (!Number.isInteger(at) || at < 0 || at > file.bytes.byteLength)
            throw new GraphNetworkError(
              "upload.status",
              `Graph upload.status answered an offset outside the file: ${String(status.file_offset)}`,
            );
          offset = at;
        }
      }
    },

    /** Submits a template for review: Meta answers its id and PENDING (or a category it chose). */
    async createTemplate(
      wabaId: string,
      token: string,
      template: GraphTemplateRequest,
    ): Promise<{ id: string; status: string; category?: string }> {
      const answer = await call<{ id?: string | number; status?: string; category?: string }>({
        step: "template.create",
        method: "POST",
        path: `${encodeURIComponent(wabaId)}/message_templates`,
        body: { ...template, parameter_format: "positional" },
        token,
        // A lost answer may have created it: a repeat would only meet "already exists". Sync adopts it.
        idempotent: false,
      });
      if (answer.id === undefined) throw new GraphNetworkError("template.create", "Graph template.create answered without an id");
      return { id: String(answer.id), status: String(answer.status ?? "PENDING"), category: answer.category };
    },

    /** Every template of a WABA, following `paging.next` (present only while another page exists). */
    async listTemplates(wabaId: string, token: string): Promise<GraphTemplate[]> {
      const templates: GraphTemplate[] = [];
      let after: string | undefined;
      // Pages of 100; a verified WABA holds at most 6,000 templates, the bound only stops a runaway loop.
      for (let page = 0; page < 100; page++) {
        const answer = await call<{ data?: Record<string, unknown>[]; paging?: { cursors?: { after?: string }; next?: string } }>({
          step: "template.list",
          method: "GET",
          path: `${encodeURIComponent(wabaId)}/message_templates`,
          query: { fields: TEMPLATE_FIELDS, limit: "100", ...(after ? { after } : {}) },
          token,
          idempotent: true,
        });
        templates.push(...(answer.data ?? []).map(toTemplate));
        after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
        if (!after) break;
      }
      return templates;
    },

    async getTemplate(templateId: string, token: string): Promise<GraphTemplate> {
      const answer = await call<Record<string, unknown>>({
        step: "template.get",
        method: "GET",
        path: encodeURIComponent(templateId),
        query: { fields: TEMPLATE_FIELDS },
        token,
        idempotent: true,
      });
      return toTemplate(answer);
    },

    /** Replaces a template's components (rejected, paused or approved ones); it goes back to review. */
    async editTemplate(templateId: string, token: string, change: { components: Record<string, unknown>[]; category?: string }) {
      await call<{ success?: boolean }>({
        step: "template.edit",
        method: "POST",
        path: encodeURIComponent(templateId),
        body: change,
        token,
        idempotent: true,
      });
    },

    /**
     * Deletes one language of a template (by name and id). A template Meta no longer has counts as
     * deleted: Meta answers 404, and the outcome the caller wants is already true.
     */
    async deleteTemplate(wabaId: string, token: string, name: string, templateId: string) {
      try {
        await call<{ success?: boolean }>({
          step: "template.delete",
          method: "DELETE",
          path: `${encodeURIComponent(wabaId)}/message_templates`,
          query: { name, hsm_id: templateId },
          token,
          idempotent: true,
        });
      } catch (error) {
        if (error instanceof GraphApiError && error.status === 404) return;
        throw error;
      }
    },

    /**
     * POST /{phone-number-id}/messages: one attempt only, never retried here. A send is not
     * idempotent (a repeat after a lost answer is a second message); the dispatcher decides retries.
     * `body` is Meta's request (messaging_product, to, type, …) as the caller built it.
     */
    async sendMessage(phoneNumberId: string, token: string, body: Record<string, unknown>): Promise<SentMessage> {
      const answer = await callOnce<{ contacts?: { wa_id?: unknown }[]; messages?: { id?: unknown; message_status?: unknown }[] }>({
        step: "messages.send",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/messages`,
        body: { messaging_product: "whatsapp", ...body },
        token,
        idempotent: false,
      });
      const message = Array.isArray(answer.messages) ? answer.messages[0] : undefined;
      if (typeof message?.id !== "string" || !message.id)
        throw new GraphNetworkError("messages.send", "Graph messages.send answered without a message id");
      const waId = Array.isArray(answer.contacts) ? answer.contacts[0]?.wa_id : undefined;
      return {
        wamid: message.id,
        ...(typeof waId === "string" ? { waId } : {}),
        ...(typeof message.message_status === "string" ? { messageStatus: message.message_status } : {}),
      };
    },

    /** Marks a customer's message read (and shows the typing indicator): the blue ticks. No webhook follows. */
    async markRead(phoneNumberId: string, token: string, wamid: string, typing = false) {
      await call<{ success?: boolean }>({
        step: "messages.read",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/messages`,
        body: {
          messaging_product: "whatsapp",
          status: "read",
          message_id: wamid,
          ...(typing ? { typing_indicator: { type: "text" } } : {}),
        },
        token,
        idempotent: true,
      });
    },

    /**
     * POST /{phone-number-id}/media (multipart): the media id a message sends by `id`. `type` is
     * Meta's `type` field, the file's MIME type; it defaults to contentType.
     */
    async uploadMedia(
      phoneNumberId: string,
      token: string,
      // A Blob read from storage as it is sent (fs.openAsBlob) keeps a 100 MB document out of memory.
      file: { bytes: Uint8Array | Blob; contentType: string; fileName: string; type?: string },
    ): Promise<string> {
      const form = new FormData();
      form.set("messaging_product", "whatsapp");
      form.set("type", file.type ?? file.contentType);
      const blob = file.bytes instanceof Blob ? file.bytes : new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.contentType });
      form.set("file", blob, file.fileName);
      const answer = await call<{ id?: unknown }>({
        step: "media.upload",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/media`,
        form,
        token,
        // A lost answer may have stored the file: a repeat only makes an unused second id.
        idempotent: false,
      });
      if (typeof answer.id !== "string" && typeof answer.id !== "number")
        throw new GraphNetworkError("media.upload", "Graph media.upload answered without a media id");
      return String(answer.id);
    },

    /** GET /{media-id}: where the file can be downloaded (a short-lived URL that needs the token). */
    async getMedia(mediaId: string, token: string, phoneNumberId?: string): Promise<GraphMedia> {
      const answer = await call<{ url?: unknown; mime_type?: unknown; sha256?: unknown; file_size?: unknown }>({
        step: "media.get",
        method: "GET",
        path: encodeURIComponent(mediaId),
        query: phoneNumberId ? { phone_number_id: phoneNumberId } : undefined,
        token,
        idempotent: true,
      });
      if (typeof answer.url !== "string" || !/^https?:\/\//.test(answer.url))
        throw new GraphNetworkError("media.get", "Graph media.get answered without a download url");
      return {
        url: answer.url,
        mimeType: typeof answer.mime_type === "string" ? answer.mime_type : "application/octet-stream",
        sha256: typeof answer.sha256 === "string" ? answer.sha256 : undefined,
        fileSize: typeof answer.file_size === "number" ? answer.file_size : Number(answer.file_size) || undefined,
      };
    },

    /**
     * The bytes at a media URL (the second hop), with the token as Bearer. Refuses more than
     * `maxBytes` (by Content-Length, and while reading), and any redirect.
     */
    async downloadMedia(url: string, token: string, maxBytes: number): Promise<Uint8Array> {
      return withRetries("media.download", true, () => downloadOnce(url, token, maxBytes));
    },

    /** DELETE /{media-id}. Media Meta no longer has counts as deleted (400, 100/33). */
    async deleteMedia(mediaId: string, token: string, phoneNumberId?: string) {
      try {
        await call<{ success?: boolean }>({
          step: "media.delete",
          method: "DELETE",
          path: encodeURIComponent(mediaId),
          query: phoneNumberId ? { phone_number_id: phoneNumberId } : undefined,
          token,
          idempotent: true,
        });
      } catch (error) {
        if (error instanceof GraphApiError && error.code === 100 && error.subcode === 33) return;
        throw error;
      }
    },
  };

  async function downloadOnce(url: string, token: string, maxBytes: number): Promise<Uint8Array> {
    const step = "media.download";
    if (!/^https?:\/\//.test(url)) throw new GraphNetworkError(step, "The media url is not an http(s) URL");
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: "error",
      });
    } catch (cause) {
      throw unreachable(step, cause);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      let parsed: unknown = {};
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not Graph's envelope */
      }
      throw graphErrorOf(step, fetchAnswer(response), parsed)!;
    }
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new MediaTooLargeError(declared, maxBytes);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = response.body?.getReader();
    for (;;) {
      const next = reader ? await reader.read() : undefined;
      if (!next || next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) {
        await reader!.cancel().catch(() => undefined);
        throw new MediaTooLargeError(total, maxBytes);
      }
      chunks.push(next.value);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return bytes;
  }
}

export interface SentMessage {
  wamid: string;
  /** The wa_id Meta answered for `to` (it may differ from the input). */
  waId?: string;
  /** Template sends: "accepted", "held_for_quality_assessment" or "paused". */
  messageStatus?: string;
}

export interface GraphMedia {
  url: string;
  mimeType: string;
  sha256?: string;
  fileSize?: number;
}

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

export interface GraphTemplateRequest {
  name: string;
  language: string;
  category: string;
  components: Record<string, unknown>[];
}

export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  previousCategory?: string;
  components: Record<string, unknown>[];
  rejectedReason?: string;
  qualityScore?: string;
}

const TEMPLATE_FIELDS = "id,name,language,status,category,previous_category,components,rejected_reason,quality_score";

function toTemplate(raw: Record<string, unknown>): GraphTemplate {
  const text = (key: string) => (typeof raw[key] === "string" ? (raw[key] as string) : undefined);
  const quality = raw.quality_score;
  return {
    id: String(raw.id),
    name: text("name") ?? "",
    // Meta's webhooks have shown en-US where the API says en_US.
    language: (text("language") ?? "").replace("-", "_"),
    status: (text("status") ?? "PENDING").toUpperCase(),
    category: (text("category") ?? "UTILITY").toUpperCase(),
    previousCategory: text("previous_category")?.toUpperCase(),
    components: Array.isArray(raw.components) ? (raw.components as Record<string, unknown>[]) : [],
    rejectedReason: text("rejected_reason"),
    qualityScore:
      typeof quality === "string"
        ? quality
        : quality && typeof quality === "object"
          ? String((quality as { score?: unknown }).score ?? "") || undefined
          : undefined,
  };
}

export type GraphClient = ReturnType<typeof createGraphClient>;

function toPhoneNumber(raw: Record<string, unknown>): GraphPhoneNumber {
  const text = (key: string) => (typeof raw[key] === "string" ? (raw[key] as string) : undefined);
  return {
    id: String(raw.id),
    displayPhoneNumber: text("display_phone_number") ?? "",
    verifiedName: text("verified_name"),
    qualityRating: text("quality_rating"),
    codeVerificationStatus: text("code_verification_status"),
    status: text("status"),
    platformType: text("platform_type"),
    messagingLimit: text("whatsapp_business_manager_messaging_limit") ?? text("messaging_limit_tier"),
  };
}

function fetchAnswer(response: Response): Answer {
  return { status: response.status, header: (name) => response.headers.get(name) ?? undefined };
}

/** Meta's error envelope (or a bare non-2xx) as a GraphApiError; undefined for a success. */
function graphErrorOf(step: string, response: Answer, parsed: unknown): GraphApiError | undefined {
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

function retryDelay(error: unknown, attempt: number, base: number) {
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

let shared: GraphClient | undefined;
let sharedKey = "";

/** The client configured from the environment. */
export function graphClient(): GraphClient {
  const config = env();
  const key = [
    config.GRAPH_API_BASE_URL,
    config.GRAPH_API_VERSION,
    config.META_APP_ID,
    config.META_APP_SECRET,
    config.GRAPH_API_TIMEOUT_MS,
  ].join("|");
  if (!shared || key !== sharedKey) {
    shared = createGraphClient({
      baseUrl: config.GRAPH_API_BASE_URL,
      version: config.GRAPH_API_VERSION,
      appId: config.META_APP_ID,
      appSecret: config.META_APP_SECRET,
      timeoutMs: config.GRAPH_API_TIMEOUT_MS,
      callLog: { records: isRecordedStep, record: recordGraphCall },
    });
    sharedKey = key;
  }
  return shared;
}
