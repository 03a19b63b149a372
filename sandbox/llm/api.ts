import { randomBytes } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { decide, magicOf, tokensOf, type Decision } from "./answer";
import type { Hold, LlmContext } from "./context";
import type { Outcome } from "./records";

/** Requests bodies above this answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** The one API key the sandbox refuses (401 `invalid_api_key`); any other non-empty key is accepted. */
export const INVALID_API_KEY = "sk-invalid";
/** `retry-after` of the `magic:429` answer, in seconds. */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 2;
/** `retry-after` of the `magic:503` answer (an overloaded server), in seconds. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/** OpenAI's error body. */
export const openAiError = (message: string, type: string, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code },
});

class RequestError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly code: string | null,
    readonly param: string | null = null,
    readonly outcome: Outcome = "invalid_request",
  ) {
    super(message);
  }
}

const randomId = (bytes: number) => randomBytes(bytes).toString("hex");

/** A message as the sandbox reads it: its role, its text, and the characters its tool calls add. */
interface ReadMessage {
  role: string;
  text: string;
  toolCallText: string;
}

interface ChatRequest {
  model: string;
  messages: ReadMessage[];
  /** The names of the functions offered (none when `tool_choice` is "none"). */
  tools: string[];
  maxTokens?: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A message's `content`: a string, null, or an array of parts whose `text` parts count. */
function textOf(content: unknown, param: string): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part, i) => {
        if (!isObject(part) || typeof part.type !== "string")
          throw new RequestError(400, `Invalid '${param}[${i}]': expected an object with a 'type'.`, "invalid_type", `${param}[${i}]`);
        if (part.type !== "text") return "";
        if (typeof part.text !== "string")
          throw new RequestError(400, `Invalid '${param}[${i}].text': expected a string.`, "invalid_type", `${param}[${i}].text`);
        return part.text;
      })
      .filter(Boolean)
      .join("\n");
  }
  throw new RequestError(400, `Invalid '${param}': expected a string, an array of content parts or null.`, "invalid_type", param);
}

function readMessage(value: unknown, i: number): ReadMessage {
  const param = `messages[${i}]`;
  if (!isObject(value)) throw new RequestError(400, `Invalid '${param}': expected an object.`, "invalid_type", param);
  if (typeof value.role !== "string" || !ROLES.has(value.role))
    throw new RequestError(
      400,
      `Invalid value for '${param}.role': expected one of 'system', 'developer', 'user', 'assistant' or 'tool'.`,
      "invalid_value",
      `${param}.role`,
    );
  const text = textOf(value.content, `${param}.content`);
  if (value.role === "user" && (value.content === undefined || value.content === null))
    throw new RequestError(400, `Missing required parameter: '${param}.content'.`, "missing_required_parameter", `${param}.content`);
  if (value.role === "tool" && typeof value.tool_call_id !== "string")
    throw new RequestError(
      400,
      `Missing required parameter: '${param}.tool_call_id'.`,
      "missing_required_parameter",
      `${param}.tool_call_id`,
    );
  let toolCallText = "";
  if (value.role === "assistant" && value.tool_calls !== undefined && value.tool_calls !== null) {
    if (!Array.isArray(value.tool_calls))
      throw new RequestError(400, `Invalid '${param}.tool_calls': expected an array.`, "invalid_type", `${param}.tool_calls`);
    for (const call of value.tool_calls) {
      const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
      if (!fn || typeof fn.name !== "string" || typeof fn.arguments !== "string")
        throw new RequestError(
          400,
          `Invalid '${param}.tool_calls': each needs 'function.name' and 'function.arguments' (a string).`,
          "invalid_value",
          `${param}.tool_calls`,
        );
      toolCallText += fn.name + fn.arguments;
    }
  }
  return { role: value.role, text, toolCallText };
}

/** The function names of `tools`, checked as OpenAI checks them. */
function readTools(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RequestError(400, "Invalid 'tools': expected an array.", "invalid_type", "tools");
  return value.map((tool, i) => {
    const fn = isObject(tool) && tool.type === "function" && isObject(tool.function) ? tool.function : undefined;
    if (!fn || typeof fn.name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(fn.name))
      throw new RequestError(
        400,
        `Invalid 'tools[${i}]': expected {"type": "function", "function": {"name": ...}} with a name of letters, digits, _ and - (64 at most).`,
        "invalid_value",
        `tools[${i}]`,
      );
    return fn.name;
  });
}

function readMaxTokens(body: Record<string, unknown>): number | undefined {
  for (const param of ["max_completion_tokens", "max_tokens"]) {
    const value = body[param];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
      throw new RequestError(400, `Invalid '${param}': expected a whole number of 1 or more.`, "invalid_value", param);
    return value;
  }
  return undefined;
}

function readRequest(raw: unknown, models: readonly string[]): ChatRequest {
  if (typeof raw !== "string" || raw.trim() === "")
    throw new RequestError(400, "The request has no body: send a JSON object with 'model' and 'messages'.", null);
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new RequestError(400, "We could not parse the JSON body of your request: send a JSON object with 'model' and 'messages'.", null);
  }
  if (!isObject(body)) throw new RequestError(400, "The body must be a JSON object with 'model' and 'messages'.", null);
  if (typeof body.model !== "string" || !body.model)
    throw new RequestError(400, "You must provide a model parameter.", "missing_required_parameter", "model");
  if (body.messages === undefined)
    throw new RequestError(400, "Missing required parameter: 'messages'.", "missing_required_parameter", "messages");
  if (!Array.isArray(body.messages)) throw new RequestError(400, "Invalid 'messages': expected an array.", "invalid_type", "messages");
  if (body.messages.length === 0)
    throw new RequestError(400, "Invalid 'messages': empty array. Expected an array with minimum length 1.", "empty_array", "messages");
  if (body.stream === true)
    throw new RequestError(400, "The sandbox does not stream: leave 'stream' out or send false.", "unsupported_value", "stream");
  const messages = body.messages.map(readMessage);
  const tools = readTools(body.tools);
  const maxTokens = readMaxTokens(body);
  if (!models.includes(body.model))
    throw new RequestError(
      404,
      `The model \`${body.model}\` does not exist or you do not have access to it. The sandbox serves ${models.map((m) => `\`${m}\``).join(", ")}.`,
      "model_not_found",
      null,
      "unknown_model",
    );
  return { model: body.model, messages, tools: body.tool_choice === "none" ? [] : tools, maxTokens };
}

/** The key of `Authorization: Bearer <key>`, or undefined. */
const bearerOf = (req: Request) => /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];

const maskKey = (key: string) => (key.length <= 8 ? "****" : `${key.slice(0, 6)}****${key.slice(-2)}`);

/** The answer of a successful completion. */
function completion(
  ctx: LlmContext,
  model: string,
  message: Record<string, unknown>,
  finishReason: string,
  usage: [number, number] | null,
) {
  return {
    id: `chatcmpl-${randomId(12)}`,
    object: "chat.completion",
    created: Math.floor(ctx.options.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
    // null: as llama.cpp's server may answer, no usage at all.
    ...(usage ? { usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] } } : {}),
    system_fingerprint: "fp_jumbe_sandbox",
  };
}

function outcomeOf(decision: Decision, truncated: boolean): Outcome {
  if (decision.kind === "tool") return decision.arguments.reason === "customer_asked" ? "handover" : "no_answer";
  if (truncated) return "truncated";
  return decision.passage === undefined ? "after_tool" : "answer";
}

/**
 * OpenAI's Chat Completions protocol: `GET /v1/models`, `GET /v1/models/:id` and
 * `POST /v1/chat/completions`, with its error shapes; anything else under /v1 is its 404.
 */
export function apiRouter(ctx: LlmContext): Router {
  const router = Router({ caseSensitive: true });

  // Every call needs `Authorization: Bearer <key>`: any key but the documented invalid one.
  router.use("/v1", (req: Request, res: Response, next: NextFunction) => {
    res.set("x-request-id", `req_${randomId(12)}`);
    const key = bearerOf(req);
    if (key !== undefined && key !== INVALID_API_KEY) return next();
    if (req.method === "POST" && req.path === "/chat/completions")
      ctx.log.add({
        model: null,
        lastUserMessage: null,
        outcome: "unauthorised",
        status: 401,
        detail: key === undefined ? "no key" : "invalid key",
        promptTokens: 0,
        completionTokens: 0,
      });
    const message =
      key === undefined
        ? "You didn't provide an API key. Send it in an Authorization header as 'Bearer <key>'."
        : `Incorrect API key provided: ${maskKey(key)}. The sandbox refuses ${INVALID_API_KEY} and accepts any other key.`;
    res.status(401).json(openAiError(message, "invalid_request_error", "invalid_api_key"));
  });

  router.get("/v1/models", (_req, res) => {
    res.json({ object: "list", data: ctx.options.models.map((id) => modelObject(id)) });
  });

  router.get("/v1/models/:id", (req, res) => {
    const id = String(req.params.id);
    if (!ctx.options.models.includes(id))
      return void res
        .status(404)
        .json(openAiError(`The model '${id}' does not exist`, "invalid_request_error", "model_not_found", "model"));
    res.json(modelObject(id));
  });

  router.post(
    "/v1/chat/completions",
    express.text({ type: () => true, limit: BODY_LIMIT_BYTES }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: number } | undefined)?.status;
      if (!status || status < 400 || status >= 500) return next(error);
      const tooLarge = status === 413;
      ctx.log.add({
        model: null,
        lastUserMessage: null,
        outcome: tooLarge ? "too_large" : "invalid_request",
        status: tooLarge ? 413 : 400,
        detail: tooLarge ? "body over 1 MB" : "unreadable body",
        promptTokens: 0,
        completionTokens: 0,
      });
      res
        .status(tooLarge ? 413 : 400)
        .json(
          openAiError(
            tooLarge ? "Request too large: the sandbox takes bodies of 1 MB at most." : "We could not read the body of your request.",
            "invalid_request_error",
            tooLarge ? "request_too_large" : null,
          ),
        );
    },
    (req: Request, res: Response) => chatCompletion(ctx, req, res),
  );

  router.use("/v1", (req, res) => {
    res.status(404).json(openAiError(`Invalid URL (${req.method} /v1${req.path})`, "invalid_request_error", null));
  });
  return router;

  function modelObject(id: string) {
    return { id, object: "model", created: 1767225600, owned_by: "jumbe-sandbox" };
  }
}

function chatCompletion(ctx: LlmContext, req: Request, res: Response) {
  let request: ChatRequest;
  try {
    request = readRequest(req.body, ctx.options.models);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    ctx.log.add({
      model: modelIn(req.body),
      lastUserMessage: null,
      outcome: error.outcome,
      status: error.httpStatus,
      detail: error.code ?? error.message.slice(0, 120),
      promptTokens: 0,
      completionTokens: 0,
    });
    return void res.status(error.httpStatus).json(openAiError(error.message, "invalid_request_error", error.code, error.param));
  }

  const { model, messages } = request;
  const question = messages.findLast((m) => m.role === "user")?.text ?? "";
  const promptTokens = messages.reduce((sum, m) => sum + tokensOf(m.text) + tokensOf(m.toolCallText), 0);
  const record = (outcome: Outcome, status: number | null, detail: string | null, completionTokens = 0) =>
    ctx.log.add({ model, lastUserMessage: question, outcome, status, detail, promptTokens, completionTokens });

  const magic = ctx.faults.shift() ?? magicOf(question);
  switch (magic) {
    case "rate_limited":
      record("rate_limited", 429, "rate_limit_exceeded");
      res.set({
        "retry-after": String(RATE_LIMIT_RETRY_AFTER_SECONDS),
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": `${RATE_LIMIT_RETRY_AFTER_SECONDS}s`,
      });
      return void res
        .status(429)
        .json(
          openAiError(
            `Rate limit reached for ${model} on requests per min (RPM): Limit 60, Used 60, Requested 1. Please try again in ${RATE_LIMIT_RETRY_AFTER_SECONDS}s.`,
            "requests",
            "rate_limit_exceeded",
          ),
        );
    case "quota":
      record("quota", 429, "insufficient_quota");
      return void res
        .status(429)
        .json(
          openAiError(
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
          ),
        );
    case "server_error":
      record("server_error", 500, "server_error");
      return void res
        .status(500)
        .json(openAiError("The server had an error while processing your request. Sorry about that!", "server_error", null));
    case "overloaded":
      record("overloaded", 503, "overloaded");
      res.set("retry-after", String(OVERLOADED_RETRY_AFTER_SECONDS));
      return void res.status(503).json(openAiError("The engine is currently overloaded, please try again later.", "server_error", null));
    case "error_body":
      // Some OpenAI-compatible servers and proxies answer a failure with 200 and only an error.
      record("error_body", 200, "error body");
      return void res.json({ error: { message: `The model ${model} is not loaded on this server.`, type: "server_error", code: 500 } });
    case "timeout":
      return hold(ctx, res, record("timeout", null, null));
    case "filtered":
      record("filtered", 200, "content_filter");
      return void res.json(completion(ctx, model, { content: null }, "content_filter", [promptTokens, 0]));
    default:
  }

  const decision = decide({
    question,
    systemTexts: messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.text),
    afterTool: messages.at(-1)?.role === "tool",
    tools: request.tools,
  });
  if (decision.kind === "tool") {
    const args = JSON.stringify(decision.arguments);
    const completionTokens = tokensOf(decision.name + args);
    record(outcomeOf(decision, false), 200, args, completionTokens);
    const toolCall = { id: `call_${randomId(12)}`, type: "function", function: { name: decision.name, arguments: args } };
    return void res.json(
      completion(
        ctx,
        model,
        { content: null, tool_calls: [toolCall] },
        "tool_calls",
        magic === "no_usage" ? null : [promptTokens, completionTokens],
      ),
    );
  }
  let content = decision.content;
  let completionTokens = tokensOf(content);
  const truncated = request.maxTokens !== undefined && completionTokens > request.maxTokens;
  if (truncated) {
    content = [...content].slice(0, request.maxTokens! * 4).join("");
    completionTokens = request.maxTokens!;
  }
  record(outcomeOf(decision, truncated), 200, decision.passage === undefined ? null : `K${decision.passage}`, completionTokens);
  res.json(
    completion(ctx, model, { content }, truncated ? "length" : "stop", magic === "no_usage" ? null : [promptTokens, completionTokens]),
  );
}

/** The `model` of a body that was refused, for the log. */
function modelIn(raw: unknown): string | null {
  try {
    const body = typeof raw === "string" ? (JSON.parse(raw) as unknown) : undefined;
    return isObject(body) && typeof body.model === "string" ? body.model.slice(0, 100) : null;
  } catch {
    return null;
  }
}

/**
 * `magic:timeout`: no answer. The request is held until the client gives up (its connection
 * closes) or `holdMs` passes, when the sandbox drops the connection without a word.
 */
function hold(ctx: LlmContext, res: Response, record: Hold["record"]) {
  const entry: Hold = {
    res,
    record,
    timer: setTimeout(() => {
      record.detail = `dropped after ${ctx.options.holdMs} ms`;
      ctx.holds.delete(entry);
      res.destroy();
    }, ctx.options.holdMs),
  };
  entry.timer.unref?.();
  ctx.holds.add(entry);
  res.on("close", () => {
    clearTimeout(entry.timer);
    ctx.holds.delete(entry);
    record.detail ??= "the client gave up";
  });
}
