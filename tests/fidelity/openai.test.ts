import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import description from "../fixtures/openai-openapi/responses.json";
import { schemaErrors, type Schema } from "@jumbe/sandbox/meta/openapi-check";
import { HANDOVER_TOOL_DEFINITION, knowledgePrompt, startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";

/**
 * The model sandbox (sandbox/llm) driven by OpenAI's own client, `openai` 6.49.0, pointed at it with
 * its documented `baseURL` option and nothing else changed (`maxRetries: 0` only so that a refusal
 * is seen once, not retried with back-off). Every answer is checked against the response schemas of
 * OpenAI's published OpenAPI document (tests/fixtures/openai-openapi, with its source and commit).
 *
 * The calls are the ones Jumbe's assistant makes (app/.server/infrastructure/clients/llm.ts): a
 * non-streaming chat completion with the `handover` tool and `tool_choice: "auto"`, `max_tokens` (or
 * `max_completion_tokens`) and `temperature`, then the same conversation with the tool's result. Jumbe
 * makes no streaming, embeddings or models calls; the sandbox's models list is checked as well, since
 * a developer pointing any OpenAI client at it starts there.
 */
const operations = description.operations as Record<string, Schema>;
const components = description.schemas as Record<string, Schema>;

function conforms(operation: string, json: unknown) {
  const schema = operations[operation];
  if (!schema) throw new Error(`no schema for ${operation}`);
  expect(schemaErrors(json, schema, components), `${operation}: ${JSON.stringify(json)}`).toEqual([]);
}

/** The body of an error answer as OpenAI's client kept it, checked as OpenAI's ErrorResponse. */
function errorConforms(error: InstanceType<typeof OpenAI.APIError>) {
  expect(schemaErrors({ error: error.error }, { $ref: "#/components/schemas/ErrorResponse" }, components)).toEqual([]);
}

/** What a call rejected with; fails when it did not. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("the call was expected to fail");
}

let h: LlmHarness;
let client: OpenAI;
beforeAll(async () => {
  h = await startLlm();
  client = new OpenAI({ apiKey: h.apiKey, baseURL: h.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await h.close();
});

const HANDOVER = HANDOVER_TOOL_DEFINITION as unknown as ChatCompletionTool;
const SYSTEM = knowledgePrompt(["We open at 8 am and close at 6 pm, Monday to Saturday.", "Delivery in Nairobi costs KES 300."]);

describe("chat completions as Jumbe's assistant makes them, through the openai client", () => {
  it("answers from a passage: a completion OpenAI's schema accepts, read by the client", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: h.model,
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: "How much is delivery in Nairobi?" },
        ],
        stream: false,
        tools: [HANDOVER],
        tool_choice: "auto",
        max_tokens: 400,
        temperature: 0.2,
      })
      .withResponse();
    expect(response.status).toBe(200);
    conforms("POST /chat/completions 200", data);
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.choices[0]?.message.content).toBe("Delivery in Nairobi costs KES 300.");
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("calls the handover tool, and answers the conversation that carries the tool's result", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: "I want to talk to a person please" },
    ];
    const first = await client.chat.completions.create({
      model: h.model,
      messages,
      tools: [HANDOVER],
      tool_choice: "auto",
      max_completion_tokens: 400,
    });
    conforms("POST /chat/completions 200", first);
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls?.[0];
    expect(call?.type).toBe("function");
    if (call?.type !== "function") throw new Error("no function call");
    expect(call.function.name).toBe("handover");
    expect(JSON.parse(call.function.arguments)).toEqual({ reason: "customer_asked" });

    const second = await client.chat.completions.create({
      model: h.model,
      messages: [
        ...messages,
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "A person on the team will answer." },
      ],
      tools: [HANDOVER],
      tool_choice: "auto",
    });
    conforms("POST /chat/completions 200", second);
    expect(second.choices[0]?.finish_reason).toBe("stop");
    expect(second.choices[0]?.message.content).toEqual(expect.any(String));
  });

  it("cuts an answer at max_tokens with finish_reason length, as OpenAI does", async () => {
    const answer = await client.chat.completions.create({
      model: h.model,
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: "When do you open on Monday?" },
      ],
      max_tokens: 2,
    });
    conforms("POST /chat/completions 200", answer);
    expect(answer.choices[0]?.finish_reason).toBe("length");
    expect(answer.usage?.completion_tokens).toBe(2);
  });

  it("answers a filtered completion and one without usage (as llama.cpp's server may) in shapes the schema allows", async () => {
    const filtered = await client.chat.completions.create({ model: h.model, messages: [{ role: "user", content: "magic:filter" }] });
    conforms("POST /chat/completions 200", filtered);
    expect(filtered.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: null } });
    const bare = await client.chat.completions.create({
      model: h.model,
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: "Delivery in Nairobi? magic:no-usage" },
      ],
    });
    conforms("POST /chat/completions 200", bare);
    expect(bare.usage).toBeUndefined();
    expect(bare.choices[0]?.message.content).toBe("Delivery in Nairobi costs KES 300.");
  });
});

describe("the models list, through the openai client", () => {
  it("lists and retrieves the served model in OpenAI's shapes", async () => {
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toContain(h.model);
    const { data: model, response } = await client.models.retrieve(h.model).withResponse();
    expect(response.status).toBe(200);
    conforms("GET /models/{model} 200", model);
    const listed = await (await fetch(`${h.baseUrl}/models`, { headers: { Authorization: `Bearer ${h.apiKey}` } })).json();
    conforms("GET /models 200", listed);
  });
});

describe("refusals as the openai client surfaces them", () => {
  it("a bad key: AuthenticationError 401 invalid_api_key", async () => {
    const refused = new OpenAI({ apiKey: "sk-invalid", baseURL: h.baseUrl, maxRetries: 0 });
    const error = await rejection(refused.chat.completions.create({ model: h.model, messages: [{ role: "user", content: "Hello" }] }));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    const apiError = error as InstanceType<typeof OpenAI.AuthenticationError>;
    expect(apiError).toMatchObject({ status: 401, code: "invalid_api_key", type: "invalid_request_error" });
    expect(apiError.requestID).toMatch(/^req_/);
    errorConforms(apiError);
  });

  it("an unknown model: NotFoundError 404 model_not_found, on a completion and on retrieve", async () => {
    const error = await rejection(client.chat.completions.create({ model: "gpt-unknown", messages: [{ role: "user", content: "Hello" }] }));
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: "model_not_found" });
    errorConforms(error as InstanceType<typeof OpenAI.NotFoundError>);
    const retrieved = await rejection(client.models.retrieve("gpt-unknown"));
    expect(retrieved).toBeInstanceOf(OpenAI.NotFoundError);
    expect(retrieved).toMatchObject({ status: 404, code: "model_not_found", param: "model" });
    errorConforms(retrieved as InstanceType<typeof OpenAI.NotFoundError>);
  });

  it("a rate limit and an exhausted quota: RateLimitError 429, with OpenAI's documented 429 body and retry-after", async () => {
    const limited = await rejection(client.chat.completions.create({ model: h.model, messages: [{ role: "user", content: "magic:429" }] }));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    const rateError = limited as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateError).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(Number(rateError.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    conforms("POST /chat/completions 429", { error: rateError.error });

    const quota = await rejection(client.chat.completions.create({ model: h.model, messages: [{ role: "user", content: "magic:quota" }] }));
    expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
    expect(quota).toMatchObject({ status: 429, code: "insufficient_quota", type: "insufficient_quota" });
    conforms("POST /chat/completions 429", { error: (quota as InstanceType<typeof OpenAI.RateLimitError>).error });
  });

  it("a server failure and an overload: InternalServerError 500 and 503", async () => {
    for (const [magic, status] of [
      ["magic:500", 500],
      ["magic:503", 503],
    ] as const) {
      const error = await rejection(client.chat.completions.create({ model: h.model, messages: [{ role: "user", content: magic }] }));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({ status, type: "server_error" });
      errorConforms(error as InstanceType<typeof OpenAI.InternalServerError>);
    }
  });

  it("a streamed request, which the sandbox does not serve: BadRequestError 400 on param stream", async () => {
    const error = await rejection(
      client.chat.completions.create({ model: h.model, messages: [{ role: "user", content: "Hello" }], stream: true }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: "stream" });
    errorConforms(error as InstanceType<typeof OpenAI.BadRequestError>);
  });
});
