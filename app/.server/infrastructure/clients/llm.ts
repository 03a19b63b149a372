/**
 * Jumbe's client for any OpenAI-compatible Chat Completions endpoint: OpenAI
 * (`https://api.openai.com/v1`), a hosted model, Ollama (`http://localhost:11434/v1`) or llama.cpp's
 * server (`http://localhost:8080/v1`). The base URL, model and key are an organisation's own (the
 * assistant's settings), not the environment's. In sandbox mode the local stand-in answers at
 * `<APP_URL>/sandbox/llm/v1` (sandbox/llm, its magic values in sandbox/README.md).
 *
 * `chatCompletion` never throws for the endpoint's failures: every outcome is a value. Within its
 * `timeoutMs` (the reply's budget) it asks again, at most LLM_RETRIES times, after a 5xx, a 408, or
 * a connection refused or dropped: after the endpoint's `retry-after` when that fits in what is left
 * of the budget, else after a short backoff; a wait that does not fit is not waited (decision 100).
 */

/** The sandbox's model, served at `sandboxLlmBaseUrl(...)`. */
export const SANDBOX_LLM_MODEL = "jumbe-sandbox-1";

/** The sandbox's base URL on Jumbe's own origin (APP_URL, or the address Jumbe calls itself at). */
export const sandboxLlmBaseUrl = (origin: string) => `${origin.replace(/\/+$/, "")}/sandbox/llm/v1`;

/** Answers larger than this are not read ("malformed"). */
export const LLM_ANSWER_LIMIT_BYTES = 1024 * 1024;
/** A 429 without a usable `retry-after`: wait this long. */
export const LLM_DEFAULT_RETRY_MS = 5_000;
/** The longest wait a 429 may ask for; longer ones are cut to this. */
export const LLM_MAX_RETRY_MS = 60_000;
/** Tries after the first, for a 5xx, a 408 or a connection refused or dropped, all within `timeoutMs`. */
export const LLM_RETRIES = 2;
/** The first backoff without `retry-after`; it doubles each try. */
export const LLM_RETRY_BACKOFF_MS = 250;
/** A try again needs at least this much of the budget left after its wait. */
export const LLM_MIN_TRY_MS = 1_000;
/**
 * When an answer has no `usage` (llama.cpp's server may leave it out), its tokens are estimated at
 * one for this many characters of the prompt and of the answer: about right for English with
 * OpenAI's and Llama's tokenizers, so the month's usage and its cap still move (decision 100).
 */
export const LLM_CHARS_PER_TOKEN = 4;

/** Time as chatCompletion reads and waits it; tests give one that counts the waits. */
export interface LlmClock {
  now(): number;
  /** Resolves after `ms`, or rejects as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const realClock: LlmClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Error("aborted"));
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", stop);
        resolve();
      }, ms);
      const stop = () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      };
      signal.addEventListener("abort", stop, { once: true });
    }),
};

/** A tool call the assistant made earlier in the conversation, as it is sent back. */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

/** A function the model may call (OpenAI's `tools[].function`). */
export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatCompletionInput {
  /** Ends in `/v1` (a trailing slash is fine): calls go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; empty or absent sends none (Ollama, llama.cpp need none). */
  apiKey?: string;
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  /** The whole call, answer read included: every try and every wait between them. */
  timeoutMs: number;
  /** Tries after the first (default LLM_RETRIES); 0 asks once. */
  retries?: number;
  /** Default: the real one. */
  clock?: LlmClock;
  /** Sent as `max_tokens`; to an endpoint that wants `max_completion_tokens` instead (OpenAI's newer models), again as that. */
  maxTokens?: number;
  temperature?: number;
  /** The caller's cancellation (a shutdown): answers `failed`/`timeout`. */
  signal?: AbortSignal;
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** The answer had no usage: counted from the characters (LLM_CHARS_PER_TOKEN). */
  estimated?: true;
}

export type LlmFailure = "quota" | "auth" | "server" | "timeout" | "network" | "filtered" | "malformed" | "refused";

export type ChatCompletionResult =
  /** `truncated`: the answer stopped at `maxTokens` (finish_reason "length"). */
  | { kind: "answer"; content: string; truncated: boolean; usage: LlmUsage }
  /** The model called a tool (the first, when it called several). */
  | { kind: "tool"; name: string; arguments: Record<string, unknown>; callId: string; usage: LlmUsage }
  /**
   * Rate limited (429, not a spent quota), or a 5xx whose `retry-after` did not fit in the budget:
   * try again after `afterMs`.
   */
  | { kind: "retry"; afterMs: number; message: string }
  /**
   * `quota`: the account's credit is spent (429 insufficient_quota, 402). `auth`: the key is
   * refused (401, 403). `server`: a 5xx. `timeout`: no answer within timeoutMs, or the caller
   * cancelled. `network`: not reached (refused connection, DNS, redirect, a base URL that is not
   * http(s)). `filtered`: the endpoint's content filter or the model's refusal. `malformed`: an
   * answer that is not a completion (not JSON, over 1 MB, no choice, tool arguments that are not a
   * JSON object, no text). `refused`: any other 4xx (a wrong model, a bad request). `httpStatus` is
   * 0 when no answer came. `endpointMessage`: the endpoint's own words when a 200 carried only an
   * error (`{"error": {"message": …}}`, as some OpenAI-compatible servers answer), reason `server`.
   */
  | { kind: "failed"; reason: LlmFailure; httpStatus: number; message: string; endpointMessage?: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const failed = (reason: LlmFailure, httpStatus: number, message: string): ChatCompletionResult => ({
  kind: "failed",
  reason,
  httpStatus,
  message,
});

function wireMessage(message: ChatMessage): Json {
  switch (message.role) {
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

function requestBody(input: ChatCompletionInput, tokensField: "max_tokens" | "max_completion_tokens"): Json {
  return {
    model: input.model,
    messages: input.messages.map(wireMessage),
    stream: false,
    ...(input.tools?.length
      ? {
          tools: input.tools.map((tool) => ({
            type: "function",
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
          tool_choice: "auto",
        }
      : {}),
    ...(input.maxTokens === undefined ? {} : { [tokensField]: input.maxTokens }),
    ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
  };
}

/** The body's text, or "too large" once it passes the limit (the rest is not read). */
async function readBounded(response: Response): Promise<string | "too large"> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > LLM_ANSWER_LIMIT_BYTES) {
      await reader.cancel().catch(() => {});
      return "too large";
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0);

/** The characters the prompt sends: every message's text and its tool calls' names and arguments. */
function promptChars(messages: ChatMessage[]) {
  let chars = 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? []) chars += call.name.length + JSON.stringify(call.arguments).length;
  }
  return chars;
}

const tokensOfChars = (chars: number) => Math.ceil(chars / LLM_CHARS_PER_TOKEN);

/** The answer's usage; without one (no `usage`, or no token in it), estimated from the characters. */
function usageOf(value: unknown, sentChars: number, answerChars: number): LlmUsage {
  const usage = isObject(value) ? value : {};
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  if (!promptTokens && !completionTokens && !total) {
    const estimate = { promptTokens: tokensOfChars(sentChars), completionTokens: tokensOfChars(answerChars) };
    return { ...estimate, totalTokens: estimate.promptTokens + estimate.completionTokens, estimated: true };
  }
  return { promptTokens, completionTokens, totalTokens: total || promptTokens + completionTokens };
}

/** How long a 429 asks to wait: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; capped. */
export function retryAfterMs(headers: Headers, now = Date.now()): number {
  const cap = (ms: number) => Math.min(Math.max(0, Math.ceil(ms)), LLM_MAX_RETRY_MS);
  const ms = headers.get("retry-after-ms")?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return cap(Number(ms));
  const after = headers.get("retry-after")?.trim();
  if (after) {
    if (/^\d+(\.\d+)?$/.test(after)) return cap(Number(after) * 1000);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return cap(date - now);
  }
  return LLM_DEFAULT_RETRY_MS;
}

/** The endpoint's error body: OpenAI's `{ error: { message, type, code, param } }`, or `{ error: "..." }`. */
function errorOf(parsed: unknown): { message: string; type: string; code: string; param: string } {
  const error = isObject(parsed) ? parsed.error : undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");
  if (typeof error === "string") return { message: error, type: "", code: "", param: "" };
  if (!isObject(error)) return { message: isObject(parsed) ? text(parsed.message) : "", type: "", code: "", param: "" };
  return { message: text(error.message), type: text(error.type), code: text(error.code), param: text(error.param) };
}

/** Whether a 400 says the endpoint wants `max_completion_tokens` rather than `max_tokens`. */
const wantsCompletionTokens = (error: ReturnType<typeof errorOf>) =>
  error.param === "max_tokens" || /max_completion_tokens/.test(error.message);

function failureOf(status: number, error: ReturnType<typeof errorOf>, headers: Headers): ChatCompletionResult {
  const message = error.message.trim().slice(0, 500) || `HTTP ${status}`;
  if (status === 429) {
    if (error.code === "insufficient_quota" || error.type === "insufficient_quota") return failed("quota", status, message);
    return { kind: "retry", afterMs: retryAfterMs(headers), message };
  }
  if (status === 401 || status === 403) return failed("auth", status, message);
  if (status === 402) return failed("quota", status, message);
  if (status === 408) return failed("timeout", status, message);
  if (status >= 500) return failed("server", status, message);
  if (status >= 400) return failed("refused", status, message);
  return failed("malformed", status, `The endpoint answered HTTP ${status}`);
}

/** A 200's completion, read as Jumbe acts on it; `sentChars` estimates the prompt's tokens when usage is missing. */
function completionOf(parsed: unknown, status: number, sentChars: number): ChatCompletionResult {
  const choice = isObject(parsed) && Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) {
    // A 200 that carries only an error: the endpoint's words are what the member needs to see.
    const said = isObject(parsed) && parsed.error !== undefined ? errorOf(parsed).message.trim().slice(0, 500) : "";
    if (said) return { kind: "failed", reason: "server", httpStatus: status, message: said, endpointMessage: said };
    return failed("malformed", status, "The answer has no choice with a message");
  }
  const message = choice.message;
  const answered = (typeof message.content === "string" ? message.content : "") + toolCallText(message.tool_calls);
  const usage = usageOf((parsed as Json).usage, sentChars, answered.length);
  if (choice.finish_reason === "content_filter") return failed("filtered", status, "The endpoint's content filter stopped the answer");
  if (typeof message.refusal === "string" && message.refusal.trim())
    return failed("filtered", status, `The model refused: ${message.refusal.trim().slice(0, 500)}`);
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    const call = message.tool_calls[0];
    const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
    if (!fn || typeof fn.name !== "string" || !fn.name) return failed("malformed", status, "A tool call without a function name");
    let args: unknown = fn.arguments;
    if (args === undefined || args === null || (typeof args === "string" && !args.trim())) args = {};
    else if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        return failed("malformed", status, `The arguments of the tool call ${fn.name} are not JSON`);
      }
    }
    if (!isObject(args)) return failed("malformed", status, `The arguments of the tool call ${fn.name} are not a JSON object`);
    return { kind: "tool", name: fn.name, arguments: args, callId: isObject(call) && typeof call.id === "string" ? call.id : "", usage };
  }
  if (typeof message.content !== "string" || !message.content.trim())
    return failed("malformed", status, `The answer has no text (finish_reason ${String(choice.finish_reason ?? "none")})`);
  return { kind: "answer", content: message.content, truncated: choice.finish_reason === "length", usage };
}

/** The characters of the tool calls in an answer: each name and its arguments as sent. */
function toolCallText(calls: unknown) {
  if (!Array.isArray(calls)) return "";
  return calls
    .map((call) => {
      const fn = isObject(call) && isObject(call.function) ? call.function : {};
      const args = typeof fn.arguments === "string" ? fn.arguments : fn.arguments === undefined ? "" : JSON.stringify(fn.arguments);
      return (typeof fn.name === "string" ? fn.name : "") + args;
    })
    .join("");
}

/** Answers worth asking again: the server's trouble (5xx, except a method it does not have) or its timeout. */
const transientStatus = (status: number) => status === 408 || (status >= 500 && status !== 501 && status !== 505);

/** Connection failures worth another try (refused, reset, dropped); not DNS, TLS or a redirect. */
const TRANSIENT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
]);
function transientNetworkError(error: unknown) {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isObject(current); depth++) {
    if (typeof current.code === "string" && TRANSIENT_CODES.has(current.code)) return true;
    if (typeof current.message === "string" && /other side closed|socket hang up/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * One Chat Completions call: the model's answer, its tool call, a wait asked for, or why it failed.
 * Transient failures are asked again within `timeoutMs` (LLM_RETRIES; the file's comment). Throws only for the caller's own mistakes (no messages, a timeout that is not a positive number).
 */
export async function chatCompletion(input: ChatCompletionInput): Promise<ChatCompletionResult> {
  if (!Number.isFinite(input.timeoutMs) || input.timeoutMs <= 0) throw new TypeError("timeoutMs must be a positive number of milliseconds");
  if (!input.messages.length) throw new TypeError("messages must not be empty");
  let url: URL;
  try {
    url = new URL(`${input.baseUrl.trim().replace(/\/+$/, "")}/chat/completions`);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    return failed("network", 0, `The base URL "${input.baseUrl.slice(0, 200)}" is not an absolute http(s) URL`);
  }
  if (!input.model.trim()) return failed("refused", 0, "No model is set");

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, input.timeoutMs);
  const cancel = () => controller.abort();
  if (input.signal?.aborted) controller.abort();
  else input.signal?.addEventListener("abort", cancel, { once: true });

  const clock = input.clock ?? realClock;
  const deadline = clock.now() + input.timeoutMs;
  const retries = Math.max(0, Math.floor(input.retries ?? LLM_RETRIES));
  const sentChars = promptChars(input.messages);
  /** Waits `ms` before another try when it leaves LLM_MIN_TRY_MS of the budget; false when it would not. */
  const waitToTry = async (ms: number) => {
    if (clock.now() + ms + LLM_MIN_TRY_MS > deadline) return false;
    await clock.sleep(ms, controller.signal);
    return true;
  };

  try {
    let tokensField: "max_tokens" | "max_completion_tokens" = "max_tokens";
    for (let tries = 0; ;) {
      let outcome: ChatCompletionResult;
      let waitMs = LLM_RETRY_BACKOFF_MS * 2 ** tries;
      let askedWait: number | null = null;
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json",
            ...(input.apiKey ? { Authorization: `Bearer ${input.apiKey}` } : {}),
          },
          body: JSON.stringify(requestBody(input, tokensField)),
          signal: controller.signal,
          redirect: "error",
        });
        const text = await readBounded(response);
        if (text === "too large") return failed("malformed", response.status, "The answer is larger than 1 MB");
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
          if (response.ok) return failed("malformed", response.status, "The answer is not JSON");
        }
        if (response.ok) return completionOf(parsed, response.status, sentChars);
        const error = errorOf(parsed);
        if (response.status === 400 && input.maxTokens !== undefined && tokensField === "max_tokens" && wantsCompletionTokens(error)) {
          tokensField = "max_completion_tokens";
          continue;
        }
        outcome = failureOf(response.status, error, response.headers);
        if (!transientStatus(response.status)) return outcome;
        if (response.headers.has("retry-after") || response.headers.has("retry-after-ms"))
          waitMs = askedWait = retryAfterMs(response.headers, clock.now());
      } catch (cause) {
        if (timedOut) return failed("timeout", 0, `No answer within ${input.timeoutMs} ms`);
        if (input.signal?.aborted) return failed("timeout", 0, "Cancelled before the model answered");
        const detail = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
        outcome = failed("network", 0, `Could not reach ${url.origin}: ${detail}`.slice(0, 500));
        if (!transientNetworkError(cause)) return outcome;
      }
      // A server that is overloaded for longer than the budget: the caller may wait it out (a job can).
      const message = outcome.kind === "failed" ? outcome.message : "";
      if (tries >= retries) return askedWait !== null ? { kind: "retry", afterMs: askedWait, message } : outcome;
      if (!(await waitToTry(waitMs))) return askedWait !== null ? { kind: "retry", afterMs: askedWait, message } : outcome;
      tries++;
    }
  } catch {
    // Only a wait between tries gets here, cut by the budget's end or the caller.
    if (timedOut) return failed("timeout", 0, `No answer within ${input.timeoutMs} ms`);
    return failed("timeout", 0, "Cancelled before the model answered");
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener("abort", cancel);
  }
}
