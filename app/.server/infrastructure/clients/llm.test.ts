import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { knowledgePrompt, startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";
import {
  chatCompletion,
  LLM_CHARS_PER_TOKEN,
  LLM_DEFAULT_RETRY_MS,
  LLM_MAX_RETRY_MS,
  LLM_RETRIES,
  retryAfterMs,
  SANDBOX_LLM_MODEL,
  sandboxLlmBaseUrl,
  type ChatCompletionInput,
  type ChatTool,
} from "./llm";

let h: LlmHarness | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const HANDOVER: ChatTool = {
  name: "handover",
  description: "Hand the conversation to a person on the team.",
  parameters: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
};

const PASSAGES = [
  "We deliver anywhere in Nairobi within two days; delivery costs KES 200.",
  "Duka letu linafunguliwa saa mbili asubuhi na kufungwa saa kumi na mbili jioni.",
];

async function setup() {
  h = await startLlm();
  return (question: string, extra: Partial<ChatCompletionInput> = {}) =>
    chatCompletion({
      baseUrl: h!.baseUrl,
      apiKey: h!.apiKey,
      model: SANDBOX_LLM_MODEL,
      messages: [
        { role: "system", content: knowledgePrompt(PASSAGES) },
        { role: "user", content: question },
      ],
      tools: [HANDOVER],
      timeoutMs: 5_000,
      ...extra,
    });
}

/** A local endpoint answering every request with `handler` (or never, when it does nothing). */
async function fakeEndpoint(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => handler(req, res, body));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(typeof body === "string" ? body : JSON.stringify(body));

const completionWith = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
  ...extra,
});

const call = (baseUrl: string, extra: Partial<ChatCompletionInput> = {}) =>
  chatCompletion({ baseUrl, apiKey: "k", model: "m", messages: [{ role: "user", content: "hi" }], timeoutMs: 2_000, ...extra });

describe("chatCompletion against the sandbox", () => {
  it("answers from the knowledge passage, with the usage", async () => {
    const ask = await setup();
    const result = await ask("How much does delivery to Nairobi cost?");
    expect(result).toEqual({
      kind: "answer",
      content: PASSAGES[0],
      truncated: false,
      usage: { promptTokens: expect.any(Number), completionTokens: Math.ceil(PASSAGES[0]!.length / 4), totalTokens: expect.any(Number) },
    });
    if (result.kind !== "answer") return;
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
    expect(h!.sandbox.requests()[0]).toMatchObject({ model: SANDBOX_LLM_MODEL, outcome: "answer", detail: "K1" });
  });

  it("answers in Swahili from a Swahili passage, and tolerates a trailing slash on the base URL", async () => {
    const ask = await setup();
    const result = await ask("Duka linafunguliwa saa ngapi?", { baseUrl: `${h!.baseUrl}/` });
    expect(result).toMatchObject({ kind: "answer", content: PASSAGES[1] });
  });

  it("hands over on 'nataka kuongea na mtu'", async () => {
    const ask = await setup();
    const result = await ask("nataka kuongea na mtu");
    expect(result).toMatchObject({ kind: "tool", name: "handover", arguments: { reason: "customer_asked" } });
    if (result.kind === "tool") expect(result.callId).toMatch(/^call_/);
  });

  it("hands over when nothing answers", async () => {
    const ask = await setup();
    expect(await ask("Do you sell bicycles?")).toMatchObject({ kind: "tool", name: "handover", arguments: { reason: "no_answer" } });
  });

  it("sends a conversation with an earlier tool call and its result back in OpenAI's shape", async () => {
    const ask = await setup();
    const result = await ask("", {
      messages: [
        { role: "system", content: knowledgePrompt(PASSAGES) },
        { role: "user", content: "agent" },
        { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "handover", arguments: { reason: "customer_asked" } }] },
        { role: "tool", toolCallId: "call_1", content: "handed over" },
      ],
    });
    expect(result).toMatchObject({ kind: "answer", content: "Thank you. A person from the team will reply here soon." });
  });

  it("says when the answer stopped at maxTokens", async () => {
    const ask = await setup();
    expect(await ask("delivery cost?", { maxTokens: 2 })).toMatchObject({ kind: "answer", content: "We deliv", truncated: true });
  });

  it("magic:429 asks to retry after retry-after's 2 s", async () => {
    const ask = await setup();
    expect(await ask("magic:429")).toEqual({ kind: "retry", afterMs: 2_000, message: expect.stringContaining("Rate limit") });
  });

  it.each([
    ["magic:quota", "quota", 429],
    ["magic:500", "server", 500],
    ["magic:filter", "filtered", 200],
  ])("%s fails as %s", async (question, reason, httpStatus) => {
    const ask = await setup();
    expect(await ask(question)).toEqual({ kind: "failed", reason, httpStatus, message: expect.any(String) });
  });

  it("magic:timeout fails as timeout after timeoutMs, and the sandbox lets go", async () => {
    const ask = await setup();
    // The sandbox holds the request 10 minutes: only the client's own timer ends the call within the
    // test's deadline, and the answer says it was that timer (no bound on the elapsed time, issue 75).
    expect(await ask("magic:timeout", { timeoutMs: 150 })).toEqual({
      kind: "failed",
      reason: "timeout",
      httpStatus: 0,
      message: "No answer within 150 ms",
    });
    await expect.poll(() => h!.sandbox.held(), { timeout: 30_000 }).toBe(0);
  });

  it("the caller's signal cancels the call", async () => {
    const ask = await setup();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await ask("magic:timeout", { signal: controller.signal })).toMatchObject({ kind: "failed", reason: "timeout", httpStatus: 0 });
    const already = AbortSignal.abort();
    expect(await ask("delivery?", { signal: already })).toMatchObject({ kind: "failed", reason: "timeout" });
  });

  it("fails as auth with a bad key", async () => {
    const ask = await setup();
    expect(await ask("delivery?", { apiKey: "sk-invalid" })).toMatchObject({ kind: "failed", reason: "auth", httpStatus: 401 });
    expect(await ask("delivery?", { apiKey: "" })).toMatchObject({ kind: "failed", reason: "auth", httpStatus: 401 });
  });

  it("fails as refused for a model the endpoint does not serve", async () => {
    const ask = await setup();
    expect(await ask("delivery?", { model: "gpt-4o-mini" })).toMatchObject({
      kind: "failed",
      reason: "refused",
      httpStatus: 404,
      message: expect.stringContaining("gpt-4o-mini"),
    });
  });
});

describe("chatCompletion against other answers", () => {
  it("posts OpenAI's request: model, messages, tools, max_tokens, the key as Bearer", async () => {
    let seen: { url?: string; headers?: http.IncomingHttpHeaders; body?: Record<string, unknown> } = {};
    const baseUrl = await fakeEndpoint((req, res, body) => {
      seen = { url: req.url, headers: req.headers, body: JSON.parse(body) };
      json(res, 200, completionWith({ content: "hi" }));
    });
    await call(baseUrl, { tools: [HANDOVER], maxTokens: 50, temperature: 0.2 });
    expect(seen.url).toBe("/v1/chat/completions");
    expect(seen.headers?.authorization).toBe("Bearer k");
    expect(seen.body).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: false,
      tools: [{ type: "function", function: HANDOVER }],
      tool_choice: "auto",
      max_tokens: 50,
      temperature: 0.2,
    });
    await call(baseUrl, { apiKey: undefined });
    expect(seen.headers?.authorization).toBeUndefined();
    expect(seen.body).not.toHaveProperty("tools");
  });

  it("sends max_completion_tokens again when the endpoint refuses max_tokens", async () => {
    const bodies: Record<string, unknown>[] = [];
    const baseUrl = await fakeEndpoint((_req, res, body) => {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      bodies.push(parsed);
      if ("max_tokens" in parsed)
        return json(res, 400, {
          error: {
            message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            type: "invalid_request_error",
            param: "max_tokens",
            code: "unsupported_parameter",
          },
        });
      json(res, 200, completionWith({ content: "ok" }));
    });
    expect(await call(baseUrl, { maxTokens: 10 })).toMatchObject({ kind: "answer", content: "ok" });
    expect(bodies.map((b) => [b.max_tokens, b.max_completion_tokens])).toEqual([
      [10, undefined],
      [undefined, 10],
    ]);
  });

  it("estimates usage when it is missing, and reads a tool call's arguments given as an object", async () => {
    const baseUrl = await fakeEndpoint((_req, res) =>
      json(
        res,
        200,
        completionWith({
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "handover", arguments: { reason: "x" } } }],
        }),
      ),
    );
    expect(await call(baseUrl)).toEqual({
      kind: "tool",
      name: "handover",
      arguments: { reason: "x" },
      callId: "c",
      // Estimated (LLM_CHARS_PER_TOKEN): "hi", and the tool's name with its arguments.
      usage: { promptTokens: 1, completionTokens: 6, totalTokens: 7, estimated: true },
    });
  });

  it.each([
    ["a body that is not JSON", "<html>oops</html>"],
    ["no choices", { id: "x", choices: [] }],
    ["a choice without a message", { choices: [{ index: 0 }] }],
    ["no text", completionWith({ content: "  " })],
    [
      "tool arguments that are not JSON",
      completionWith({ content: null, tool_calls: [{ id: "c", type: "function", function: { name: "handover", arguments: "{reason:" } }] }),
    ],
    [
      "tool arguments that are not an object",
      completionWith({ content: null, tool_calls: [{ id: "c", type: "function", function: { name: "handover", arguments: "[1]" } }] }),
    ],
    [
      "a tool call without a name",
      completionWith({ content: null, tool_calls: [{ id: "c", type: "function", function: { arguments: "{}" } }] }),
    ],
  ])("fails as malformed on %s", async (_label, body) => {
    const baseUrl = await fakeEndpoint((_req, res) => json(res, 200, body));
    expect(await call(baseUrl)).toMatchObject({ kind: "failed", reason: "malformed", httpStatus: 200 });
  });

  it("fails as malformed on an answer over 1 MB, without reading it all", async () => {
    const baseUrl = await fakeEndpoint((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(`{"choices":[{"message":{"content":"`);
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 40 && res.write(chunk)) sent++;
        if (sent < 40) res.once("drain", more);
        else res.end(`"}}]}`);
      };
      res.on("error", () => {});
      more();
    });
    expect(await call(baseUrl)).toMatchObject({ kind: "failed", reason: "malformed", message: "The answer is larger than 1 MB" });
  });

  it("reads a model's refusal as filtered", async () => {
    const baseUrl = await fakeEndpoint((_req, res) =>
      json(res, 200, completionWith({ content: null, refusal: "I cannot help with that." })),
    );
    expect(await call(baseUrl)).toMatchObject({ kind: "failed", reason: "filtered", message: expect.stringContaining("cannot help") });
  });

  it.each([
    [
      403,
      { error: { message: "Country not supported", type: "invalid_request_error", code: "unsupported_country_region_territory" } },
      "auth",
    ],
    [402, { error: { message: "Insufficient credits" } }, "quota"],
    [400, { error: { message: "Bad tool schema", type: "invalid_request_error", param: "tools", code: null } }, "refused"],
    [503, "<html>Service Unavailable</html>", "server"],
    [502, { error: "upstream down" }, "server"],
  ])("maps HTTP %i to %s", async (status, body, reason) => {
    const baseUrl = await fakeEndpoint((_req, res) => json(res, status, body));
    const result = await call(baseUrl);
    expect(result).toMatchObject({ kind: "failed", reason, httpStatus: status });
    if (result.kind === "failed" && typeof body === "object" && typeof body.error === "object")
      expect(result.message).toBe(body.error.message);
  });

  it("takes the wait of a 429 from retry-after as an HTTP date, and 5 s without one", async () => {
    let header: Record<string, string> = { "retry-after": new Date(Date.now() + 10_000).toUTCString() };
    const baseUrl = await fakeEndpoint((_req, res) =>
      json(res, 429, { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } }, header),
    );
    const dated = await call(baseUrl);
    expect(dated.kind).toBe("retry");
    if (dated.kind === "retry") {
      expect(dated.afterMs).toBeGreaterThan(7_000);
      expect(dated.afterMs).toBeLessThanOrEqual(10_000);
      expect(dated.message).toBe("slow down");
    }
    header = {};
    expect(await call(baseUrl)).toMatchObject({ kind: "retry", afterMs: LLM_DEFAULT_RETRY_MS });
  });

  it("fails as network when nothing listens, and for a base URL that is not http(s)", async () => {
    const closed = await fakeEndpoint(() => {});
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    expect(await call(closed)).toMatchObject({ kind: "failed", reason: "network", httpStatus: 0 });
    expect(await call("ftp://example.test/v1")).toMatchObject({ kind: "failed", reason: "network", httpStatus: 0 });
    expect(await call("not a url")).toMatchObject({ kind: "failed", reason: "network" });
  });

  it("fails as network on a redirect (the key never follows it)", async () => {
    const baseUrl = await fakeEndpoint((_req, res) => res.writeHead(307, { Location: "http://127.0.0.1:1/v1/chat/completions" }).end());
    expect(await call(baseUrl)).toMatchObject({ kind: "failed", reason: "network" });
  });
});

describe("retryAfterMs", () => {
  const headers = (values: Record<string, string>) => new Headers(values);
  it("reads retry-after-ms, retry-after seconds and dates, capped, with a default", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs(headers({ "retry-after-ms": "1500" }), now)).toBe(1_500);
    expect(retryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(retryAfterMs(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(headers({ "retry-after": new Date(now + 30_000).toUTCString() }), now)).toBe(30_000);
    expect(retryAfterMs(headers({ "retry-after": new Date(now - 30_000).toUTCString() }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after": "86400" }), now)).toBe(LLM_MAX_RETRY_MS);
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBe(LLM_DEFAULT_RETRY_MS);
    expect(retryAfterMs(headers({}), now)).toBe(LLM_DEFAULT_RETRY_MS);
  });
});

describe("sandboxLlmBaseUrl", () => {
  it("is the sandbox's /v1 on an origin", () => {
    expect(sandboxLlmBaseUrl("http://localhost:3000/")).toBe("http://localhost:3000/sandbox/llm/v1");
  });
});

/** A clock that waits at once and counts: the budget is spent by the waits asked for, no real time passes. */
function fakeClock() {
  let now = 1_000_000;
  const waits: number[] = [];
  return {
    waits,
    clock: {
      now: () => now,
      sleep: async (ms: number) => {
        waits.push(ms);
        now += ms;
      },
    },
  };
}

describe("chatCompletion's retries within the time budget", () => {
  it("asks an overloaded endpoint again after its retry-after, and answers (the sandbox's 503 then its answer)", async () => {
    const ask = await setup();
    h!.sandbox.fail("magic:503", 2);
    const { clock, waits } = fakeClock();
    const result = await ask("How much does delivery to Nairobi cost?", { clock, timeoutMs: 20_000 });
    expect(result).toMatchObject({ kind: "answer", content: PASSAGES[0] });
    expect(h!.sandbox.requests().map((r) => r.outcome)).toEqual(["answer", "overloaded", "overloaded"]);
    expect(waits).toEqual([1_000, 1_000]);
  });

  it.each([500, 502, 503, 504, 408])(
    "tries HTTP %i at most LLM_RETRIES more times, then fails with the endpoint's status",
    async (status) => {
      let calls = 0;
      const baseUrl = await fakeEndpoint((_req, res) => {
        calls++;
        json(res, status, { error: { message: `down ${status}` } });
      });
      const { clock, waits } = fakeClock();
      const result = await call(baseUrl, { clock, timeoutMs: 20_000 });
      expect(result).toMatchObject({ kind: "failed", httpStatus: status, message: `down ${status}` });
      expect(calls).toBe(1 + LLM_RETRIES);
      expect(waits).toHaveLength(LLM_RETRIES);
    },
  );

  it("tries a refused connection again, and a connection dropped before the answer", async () => {
    let calls = 0;
    const baseUrl = await fakeEndpoint((req, res) => {
      calls++;
      if (calls === 1) return void req.socket.destroy();
      json(res, 200, completionWith({ content: "Karibu" }, { usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
    });
    const { clock } = fakeClock();
    expect(await call(baseUrl, { clock })).toMatchObject({ kind: "answer", content: "Karibu" });
    expect(calls).toBe(2);

    const closed = await fakeEndpoint(() => {});
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const counted = fakeClock();
    expect(await call(closed, { clock: counted.clock })).toMatchObject({ kind: "failed", reason: "network" });
    expect(counted.waits).toHaveLength(LLM_RETRIES);
  });

  it("never waits past the budget: a retry-after longer than what is left comes back as a wait to the caller", async () => {
    let calls = 0;
    const baseUrl = await fakeEndpoint((_req, res) => {
      calls++;
      json(res, 503, { error: { message: "overloaded" } }, { "retry-after": "10" });
    });
    const { clock, waits } = fakeClock();
    expect(await call(baseUrl, { clock, timeoutMs: 5_000 })).toEqual({ kind: "retry", afterMs: 10_000, message: "overloaded" });
    expect(calls).toBe(1);
    expect(waits).toEqual([]);

    // Waits that fit once but not twice: the second is not waited.
    calls = 0;
    const second = fakeClock();
    const tight = await fakeEndpoint((_req, res) => {
      calls++;
      json(res, 503, { error: { message: "overloaded" } }, { "retry-after": "3" });
    });
    expect(await call(tight, { clock: second.clock, timeoutMs: 6_000 })).toMatchObject({ kind: "retry", afterMs: 3_000 });
    expect(calls).toBe(2);
    expect(second.waits).toEqual([3_000]);
  });

  it("does not try again what another try cannot change (a 4xx, a 200 with an error body)", async () => {
    let calls = 0;
    const baseUrl = await fakeEndpoint((_req, res) => {
      calls++;
      json(res, 400, { error: { message: "Bad tool schema" } });
    });
    const { clock, waits } = fakeClock();
    expect(await call(baseUrl, { clock })).toMatchObject({ kind: "failed", reason: "refused" });
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });
});

describe("chatCompletion and what OpenAI-compatible servers answer", () => {
  it("keeps the endpoint's own message when a 200 carries an error body (the sandbox's magic:error-body)", async () => {
    const ask = await setup();
    const result = await ask("magic:error-body");
    expect(result).toEqual({
      kind: "failed",
      reason: "server",
      httpStatus: 200,
      message: "The model jumbe-sandbox-1 is not loaded on this server.",
      endpointMessage: "The model jumbe-sandbox-1 is not loaded on this server.",
    });
    expect(h!.sandbox.requests()).toHaveLength(1);
  });

  it("estimates the tokens, about 4 characters each, when the answer has no usage (the sandbox's magic:no-usage)", async () => {
    const ask = await setup();
    const result = await ask("How much does delivery to Nairobi cost? magic:no-usage");
    expect(result).toMatchObject({ kind: "answer", content: PASSAGES[0] });
    if (result.kind !== "answer") return;
    const sent = knowledgePrompt(PASSAGES).length + "How much does delivery to Nairobi cost? magic:no-usage".length;
    expect(result.usage).toEqual({
      promptTokens: Math.ceil(sent / LLM_CHARS_PER_TOKEN),
      completionTokens: Math.ceil(PASSAGES[0]!.length / LLM_CHARS_PER_TOKEN),
      totalTokens: Math.ceil(sent / LLM_CHARS_PER_TOKEN) + Math.ceil(PASSAGES[0]!.length / LLM_CHARS_PER_TOKEN),
      estimated: true,
    });
  });
});
