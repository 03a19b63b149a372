import { Router } from "express";
import { sandboxGate } from "../access";
import { MAGIC, SANDBOX_MODEL } from "./answer";
import { apiRouter } from "./api";
import { consoleRouter } from "./console";
import type { Hold, LlmContext, ResolvedOptions } from "./context";
import { controlRouter, queueFault, resetLog } from "./control";
import { RequestLog, type RequestRecord } from "./records";

export {
  AFTER_TOOL_TEXT,
  HANDOVER_PHRASES,
  HANDOVER_TOOL,
  HANDOVER_WORDS,
  MAGIC,
  NO_ANSWER_TEXT,
  SANDBOX_MODEL,
  STOP_WORDS,
  type Magic,
} from "./answer";
export { BODY_LIMIT_BYTES, INVALID_API_KEY, OVERLOADED_RETRY_AFTER_SECONDS, RATE_LIMIT_RETRY_AFTER_SECONDS } from "./api";
export type { Outcome, RequestRecord } from "./records";

export interface LlmSandboxOptions {
  /** Where the router is mounted. Default "/sandbox/llm". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console and control API ask for it when set (sandbox/access.ts). */
  controlToken?: string;
  secureCookie?: boolean;
  /** The model ids served. Default `["jumbe-sandbox-1"]`. */
  models?: string[];
  /** How long a `magic:timeout` request is held before the sandbox drops it. Default 10 minutes. */
  holdMs?: number;
  /** How many requests are remembered. Default 200. */
  recordLimit?: number;
  now?: () => number;
}

export interface LlmSandbox {
  router: Router;
  /** Drops every held request. */
  close(): Promise<void>;
  /** The requests received, newest first. */
  requests(): RequestRecord[];
  /** How many `magic:timeout` requests are held open now. */
  held(): number;
  /** The next `times` chat completions answer as the magic value `magic` (`"magic:503"`…) asks. */
  fail(magic: keyof typeof MAGIC, times?: number): void;
  reset(): void;
}

function resolveOptions(input: LlmSandboxOptions): ResolvedOptions {
  const publicPath = (input.publicPath ?? "/sandbox/llm").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createLlmSandbox: publicPath must start with "/".');
  const holdMs = input.holdMs ?? 10 * 60_000;
  if (!Number.isFinite(holdMs) || holdMs < 0) throw new Error("createLlmSandbox: holdMs must be 0 or more.");
  const recordLimit = input.recordLimit ?? 200;
  if (!Number.isInteger(recordLimit) || recordLimit < 1) throw new Error("createLlmSandbox: recordLimit must be at least 1.");
  const models = input.models ?? [SANDBOX_MODEL];
  if (models.length === 0 || models.some((m) => typeof m !== "string" || !m))
    throw new Error("createLlmSandbox: models must name at least one.");
  return { publicPath, models, holdMs, recordLimit, now: input.now ?? Date.now };
}

/**
 * A local stand-in for an OpenAI-compatible model (OpenAI, Ollama, llama.cpp server): the Chat
 * Completions protocol with deterministic answers from the knowledge passages in the system
 * messages, a `handover` tool call, magic values for each failure, a request log, a JSON control
 * API for tests and a console. State lives in memory.
 */
export function createLlmSandbox(input: LlmSandboxOptions = {}): LlmSandbox {
  const options = resolveOptions(input);
  const ctx: LlmContext = { options, log: new RequestLog(options.now, options.recordLimit), holds: new Set<Hold>(), faults: [] };

  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  // The model's API is Jumbe's server (with its API key): not gated, as a real endpoint is not.
  router.use(apiRouter(ctx));
  router.post("/token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));

  return {
    router,
    async close() {
      for (const hold of [...ctx.holds]) {
        clearTimeout(hold.timer);
        hold.record.detail ??= "dropped: the sandbox closed";
        hold.res.destroy();
      }
      ctx.holds.clear();
    },
    requests: () => ctx.log.list(),
    held: () => ctx.holds.size,
    fail: (magic, times = 1) => queueFault(ctx, MAGIC[magic], times),
    reset: () => resetLog(ctx),
  };
}
