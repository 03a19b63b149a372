import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { SANDBOX_MODEL } from "./answer";
import { createLlmSandbox, type LlmSandboxOptions, type RequestRecord } from "./index";
import { keepIdleConnections } from "../test-server";

/** A key the sandbox accepts (any but `sk-invalid` is). */
export const API_KEY = "sk-sandbox-tests-0123456789";
export const MODEL = SANDBOX_MODEL;

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  json: T;
}

/** The `handover` tool as Jumbe offers it. */
export const HANDOVER_TOOL_DEFINITION = {
  type: "function",
  function: {
    name: "handover",
    description: "Hand the conversation to a person on the team.",
    parameters: {
      type: "object",
      properties: { reason: { type: "string", enum: ["customer_asked", "no_answer"] } },
      required: ["reason"],
    },
  },
} as const;

/** A system message listing the passages with Jumbe's markers: `[K1] …`, `[K2] …`. */
export function knowledgePrompt(passages: readonly string[]) {
  return ["You answer customers of a shop from these passages only.", ...passages.map((text, i) => `[K${i + 1}] ${text}`)].join("\n");
}

/** The sandbox on a throwaway Express app on a free loopback port. `baseUrl` ends in `/v1`. */
export async function startLlm(overrides: LlmSandboxOptions = {}) {
  const sandbox = createLlmSandbox(overrides);
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "test-nonce";
    next();
  });
  app.use("/sandbox/llm", sandbox.router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}/sandbox/llm`;
  const baseUrl = `${base}/v1`;

  /** POST /v1/chat/completions with `body` (an object is sent as JSON, a string as it is). */
  async function chat(body: unknown, init: { key?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? API_KEY : init.key;
    if (key !== null) headers.set("Authorization", `Bearer ${key}`);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
  }

  /** A control API call (no token unless given). */
  async function control(
    path: string,
    init: RequestInit = {},
  ): Promise<Answer<{ requests: RequestRecord[]; held: number; message?: string }>> {
    const response = await fetch(`${base}/control${path}`, init);
    return { status: response.status, headers: response.headers, json: await response.json() };
  }

  return {
    sandbox,
    origin,
    base,
    baseUrl,
    apiKey: API_KEY,
    model: MODEL,
    chat,
    control,
    async close() {
      await sandbox.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type LlmHarness = Awaited<ReturnType<typeof startLlm>>;
