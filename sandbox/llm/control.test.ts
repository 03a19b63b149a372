import { afterEach, describe, expect, it } from "vitest";
import { HANDOVER_TOOL_DEFINITION, knowledgePrompt, startLlm, type LlmHarness } from "./test-support";

let h: LlmHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = "demo-host-control-token-0123456789abcdef";

const ask = (question: string) => ({
  model: "jumbe-sandbox-1",
  messages: [
    { role: "system", content: knowledgePrompt(["The shop opens at 8 am and closes at 6 pm."]) },
    { role: "user", content: question },
  ],
  tools: [HANDOVER_TOOL_DEFINITION],
});

describe("the request log", () => {
  it("records each request, newest first, with model, last user message, outcome and tokens", async () => {
    h = await startLlm();
    await h.chat(ask("When do you close?"));
    await h.chat(ask("nataka kuongea na mtu"));
    await h.chat(ask("magic:429"));
    const { status, json } = await h.control("/requests");
    expect(status).toBe(200);
    expect(json.requests.map((r) => [r.index, r.outcome, r.status, r.lastUserMessage])).toEqual([
      [3, "rate_limited", 429, "magic:429"],
      [2, "handover", 200, "nataka kuongea na mtu"],
      [1, "answer", 200, "When do you close?"],
    ]);
    expect(json.requests[2]).toMatchObject({ model: "jumbe-sandbox-1", detail: "K1", completionTokens: 11 });
    expect(json.requests[2]!.promptTokens).toBeGreaterThan(0);
    expect(json.requests[1]!.detail).toBe('{"reason":"customer_asked"}');
    expect(json.requests[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("keeps the last recordLimit requests", async () => {
    h = await startLlm({ recordLimit: 2 });
    for (const q of ["one", "two", "three"]) await h.chat(ask(q));
    expect(h.sandbox.requests().map((r) => r.lastUserMessage)).toEqual(["three", "two"]);
  });

  it("forgets them on reset", async () => {
    h = await startLlm();
    await h.chat(ask("When do you close?"));
    expect((await h.control("/reset", { method: "POST" })).json).toEqual({ ok: true });
    expect((await h.control("/requests")).json.requests).toEqual([]);
  });
});

describe("the console", () => {
  it("shows the requests, server-rendered, with the style under the CSP nonce, and a reset form", async () => {
    h = await startLlm();
    await h.chat(ask("<b>When</b> do you close?"));
    const response = await fetch(h.base);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain('<style nonce="test-nonce">');
    expect(html).toContain("&lt;b&gt;When&lt;/b&gt; do you close?");
    expect(html).not.toContain("<b>When</b>");
    expect(html).toContain("magic:timeout");
    const reset = await fetch(`${h.base}/console/reset`, { method: "POST", redirect: "manual" });
    expect(reset.status).toBe(303);
    expect(reset.headers.get("location")).toMatch(/^\/sandbox\/llm\?notice=/);
    expect(h.sandbox.requests()).toEqual([]);
  });
});

describe("with SANDBOX_CONTROL_TOKEN", () => {
  it("asks for the token on the control API and the console, never on the model's API", async () => {
    h = await startLlm({ controlToken: TOKEN });
    expect((await h.control("/requests")).status).toBe(401);
    expect((await h.control("/reset", { method: "POST" })).status).toBe(401);
    expect((await h.control("/requests", { headers: { "x-sandbox-token": TOKEN } })).status).toBe(200);
    const gate = await fetch(h.base, { headers: { accept: "text/html" } });
    expect(gate.status).toBe(401);
    const html = await gate.text();
    expect(html).toContain("Sandbox token");
    expect(html).toContain('action="/sandbox/llm/token"');
    expect((await fetch(`${h.base}/console/reset`, { method: "POST", redirect: "manual" })).status).toBe(401);
    expect((await fetch(h.base, { headers: { "x-sandbox-token": TOKEN } })).status).toBe(200);
    // The model's own API takes any API key, with or without the sandbox token.
    expect((await h.chat(ask("When do you close?"))).status).toBe(200);
  });
});
