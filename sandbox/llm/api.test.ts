import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { HANDOVER_TOOL_DEFINITION, knowledgePrompt, startLlm, type LlmHarness } from "./test-support";

let h: LlmHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PASSAGES = [
  "We deliver anywhere in Nairobi within two days; delivery costs KES 200.",
  "The shop opens at 8 am and closes at 6 pm, Monday to Saturday.",
];

const request = (question: string, extra: Record<string, unknown> = {}) => ({
  model: "jumbe-sandbox-1",
  messages: [
    { role: "system", content: knowledgePrompt(PASSAGES) },
    { role: "user", content: question },
  ],
  tools: [HANDOVER_TOOL_DEFINITION],
  ...extra,
});

type Choice = { index: number; message: Record<string, unknown>; finish_reason: string };
const choiceOf = (json: Record<string, unknown>) => (json.choices as Choice[])[0]!;

describe("GET /v1/models", () => {
  it("lists the sandbox's model, with a key", async () => {
    h = await startLlm();
    const response = await fetch(`${h.baseUrl}/models`, { headers: { Authorization: `Bearer ${h.apiKey}` } });
    expect(response.status).toBe(200);
    const json = await response.json();
    expect(json).toEqual({
      object: "list",
      data: [{ id: "jumbe-sandbox-1", object: "model", created: expect.any(Number), owned_by: "jumbe-sandbox" }],
    });
    const one = await fetch(`${h.baseUrl}/models/jumbe-sandbox-1`, { headers: { Authorization: `Bearer ${h.apiKey}` } });
    expect(await one.json()).toMatchObject({ id: "jumbe-sandbox-1", object: "model" });
    const missing = await fetch(`${h.baseUrl}/models/gpt-9`, { headers: { Authorization: `Bearer ${h.apiKey}` } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("model_not_found");
    expect((await fetch(`${h.baseUrl}/models`)).status).toBe(401);
  });
});

describe("POST /v1/chat/completions", () => {
  it("answers the passage that shares most words with the last user message, in OpenAI's shape", async () => {
    h = await startLlm({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    const messages = [
      { role: "system", content: knowledgePrompt(PASSAGES) },
      { role: "user", content: "How much is delivery?" },
      { role: "assistant", content: "KES 200." },
      { role: "user", content: [{ type: "text", text: "And when do you close on Saturday?" }] },
    ];
    const answer = await h.chat({ model: "jumbe-sandbox-1", messages });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.headers.get("x-request-id")).toMatch(/^req_/);
    expect(answer.json).toMatchObject({
      object: "chat.completion",
      created: Math.floor(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000),
      model: "jumbe-sandbox-1",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "The shop opens at 8 am and closes at 6 pm, Monday to Saturday." },
          finish_reason: "stop",
        },
      ],
    });
    expect(answer.json.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
    expect(choiceOf(answer.json).message.tool_calls).toBeUndefined();
    // ceil(characters / 4) of each message's text.
    const prompt = messages.reduce(
      (sum, m) => sum + Math.ceil((typeof m.content === "string" ? m.content : m.content[0]!.text).length / 4),
      0,
    );
    expect(answer.json.usage).toEqual({ prompt_tokens: prompt, completion_tokens: 16, total_tokens: prompt + 16 });
  });

  it("calls the handover tool when the customer asks for a person", async () => {
    h = await startLlm();
    const answer = await h.chat(request("Sawa, nataka kuongea na mtu"));
    expect(answer.status).toBe(200);
    const choice = choiceOf(answer.json);
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const calls = choice.message.tool_calls as { id: string; type: string; function: { name: string; arguments: string } }[];
    expect(calls).toHaveLength(1);
    expect(calls[0]!.id).toMatch(/^call_/);
    expect(calls[0]).toMatchObject({ type: "function", function: { name: "handover" } });
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ reason: "customer_asked" });
  });

  it("calls the handover tool when nothing answers; without the tool it does not know", async () => {
    h = await startLlm();
    const handedOver = choiceOf((await h.chat(request("Do you sell bicycles?"))).json);
    expect(JSON.parse((handedOver.message.tool_calls as { function: { arguments: string } }[])[0]!.function.arguments)).toEqual({
      reason: "no_answer",
    });
    const noTool = await h.chat(request("Do you sell bicycles?", { tools: undefined }));
    expect(choiceOf(noTool.json)).toMatchObject({ message: { content: "I do not know." }, finish_reason: "stop" });
    const none = await h.chat(request("Do you sell bicycles?", { tool_choice: "none" }));
    expect(choiceOf(none.json).message.content).toBe("I do not know.");
  });

  it("answers after a tool's result that a person will reply", async () => {
    h = await startLlm();
    const body = request("agent please");
    body.messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "handover", arguments: '{"reason":"customer_asked"}' } }],
      } as never,
      { role: "tool", tool_call_id: "call_1", content: "handed over" } as never,
    );
    const answer = await h.chat(body);
    expect(choiceOf(answer.json).message.content).toBe("Thank you. A person from the team will reply here soon.");
  });

  it("cuts the answer at max_tokens (or max_completion_tokens) with finish_reason length", async () => {
    h = await startLlm();
    const cut = await h.chat(request("When do you close?", { max_tokens: 3 }));
    expect(choiceOf(cut.json)).toMatchObject({ message: { content: "The shop ope" }, finish_reason: "length" });
    expect((cut.json.usage as { completion_tokens: number }).completion_tokens).toBe(3);
    const newer = await h.chat(request("When do you close?", { max_completion_tokens: 2 }));
    expect(choiceOf(newer.json).message.content).toBe("The shop");
  });

  it.each([
    ["no key", null],
    ["an empty key", ""],
    ["the invalid key", "sk-invalid"],
  ])("refuses %s with OpenAI's 401", async (_label, key) => {
    h = await startLlm();
    const answer = await h.chat(request("When do you close?"), key === "" ? { key: null, headers: { Authorization: "Bearer " } } : { key });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({
      error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "invalid_api_key" },
    });
    expect(h.sandbox.requests()[0]).toMatchObject({ outcome: "unauthorised", status: 401 });
  });

  it.each([
    ["a body that is not JSON", "{not json", null, null],
    ["no model", { messages: [{ role: "user", content: "hi" }] }, "model", "missing_required_parameter"],
    ["no messages", { model: "jumbe-sandbox-1" }, "messages", "missing_required_parameter"],
    ["empty messages", { model: "jumbe-sandbox-1", messages: [] }, "messages", "empty_array"],
    ["a wrong role", { model: "jumbe-sandbox-1", messages: [{ role: "robot", content: "hi" }] }, "messages[0].role", "invalid_value"],
    [
      "a bad tool",
      { model: "jumbe-sandbox-1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function" }] },
      "tools[0]",
      "invalid_value",
    ],
    ["streaming", { model: "jumbe-sandbox-1", messages: [{ role: "user", content: "hi" }], stream: true }, "stream", "unsupported_value"],
    [
      "max_tokens 0",
      { model: "jumbe-sandbox-1", messages: [{ role: "user", content: "hi" }], max_tokens: 0 },
      "max_tokens",
      "invalid_value",
    ],
  ])("refuses %s with 400 in OpenAI's shape", async (_label, body, param, code) => {
    h = await startLlm();
    const answer = await h.chat(body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: { message: expect.any(String), type: "invalid_request_error", param, code } });
  });

  it("answers 404 model_not_found for a model it does not serve", async () => {
    h = await startLlm();
    const answer = await h.chat(request("hi", { model: "gpt-4o-mini" }));
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: { type: "invalid_request_error", code: "model_not_found" } });
    expect(h.sandbox.requests()[0]).toMatchObject({ outcome: "unknown_model", model: "gpt-4o-mini", status: 404 });
  });

  it("answers 413 to a body over 1 MB", async () => {
    h = await startLlm();
    const answer = await h.chat(request("x".repeat(1024 * 1024)));
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ error: { type: "invalid_request_error", code: "request_too_large" } });
  });

  it("answers OpenAI's 404 for another path under /v1", async () => {
    h = await startLlm();
    const response = await fetch(`${h.baseUrl}/embeddings`, { method: "POST", headers: { Authorization: `Bearer ${h.apiKey}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: "Invalid URL (POST /v1/embeddings)", type: "invalid_request_error", param: null, code: null },
    });
  });
});

describe("magic values", () => {
  it("magic:429 answers 429 rate_limit_exceeded with retry-after 2", async () => {
    h = await startLlm();
    const answer = await h.chat(request("magic:429 when do you close?"));
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toBe("2");
    expect(answer.json).toEqual({ error: { message: expect.any(String), type: "requests", param: null, code: "rate_limit_exceeded" } });
  });

  it("magic:quota answers 429 insufficient_quota without retry-after", async () => {
    h = await startLlm();
    const answer = await h.chat(request("MAGIC:QUOTA"));
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toBeNull();
    expect(answer.json).toEqual({
      error: { message: expect.any(String), type: "insufficient_quota", param: null, code: "insufficient_quota" },
    });
  });

  it("magic:500 answers 500 server_error", async () => {
    h = await startLlm();
    const answer = await h.chat(request("magic:500"));
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ error: { type: "server_error" } });
  });

  it("magic:filter answers 200 with finish_reason content_filter and no content", async () => {
    h = await startLlm();
    const answer = await h.chat(request("magic:filter"));
    expect(answer.status).toBe(200);
    expect(choiceOf(answer.json)).toMatchObject({ message: { role: "assistant", content: null }, finish_reason: "content_filter" });
  });

  it("magic:timeout holds the request until the client gives up, and lets go of it", async () => {
    h = await startLlm();
    const aborted = await fetch(`${h.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${h.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(request("magic:timeout")),
      signal: AbortSignal.timeout(200),
    }).then(
      () => "answered",
      (error: Error) => error.name,
    );
    expect(aborted).toBe("TimeoutError");
    await expect.poll(() => h!.sandbox.held(), { timeout: 30_000 }).toBe(0);
    expect(h.sandbox.requests()[0]).toMatchObject({ outcome: "timeout", status: null, detail: "the client gave up" });
  });

  it("magic:timeout drops the connection after holdMs", async () => {
    h = await startLlm({ holdMs: 50 });
    const { port, pathname } = new URL(`${h.baseUrl}/chat/completions`);
    const outcome = await new Promise<string>((resolve) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: pathname, method: "POST", headers: { Authorization: `Bearer ${h!.apiKey}` } },
        () => resolve("answered"),
      );
      req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      req.end(JSON.stringify(request("magic:timeout")));
    });
    expect(outcome).toBe("ECONNRESET");
    expect(h.sandbox.held()).toBe(0);
    expect(h.sandbox.requests()[0]).toMatchObject({ outcome: "timeout", detail: "dropped after 50 ms" });
  });
});
