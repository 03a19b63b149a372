import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { chatCompletion, SANDBOX_LLM_MODEL, sandboxLlmBaseUrl } from "~/.server/infrastructure/clients/llm";
import { createApp } from "../../server";
import { createLlmSandbox, type LlmSandbox } from "@jumbe/sandbox/llm/index";

// The model sandbox inside Jumbe's own Express app: its security headers (the CSP nonce on the
// console's style), body limits, the case-sensitive prefix and the sandbox token on a demo host.
const TOKEN = "demo-host-control-token-0123456789abcdef";
let server: Server;
let sandbox: LlmSandbox;
let origin: string;
const before = env();

beforeAll(async () => {
  setEnv(parseEnv({ ...process.env, NODE_ENV: "test", SANDBOX: "1" }));
  sandbox = createLlmSandbox({ controlToken: TOKEN });
  const noPages = async (): Promise<ServerBuild> => {
    throw new Error("no React Router pages in this test");
  };
  server = createApp(noPages, { llmSandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  setEnv({ ...env(), APP_URL: origin });
});

afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  setEnv(before);
});

describe("the model sandbox in Jumbe's app", () => {
  it("answers Jumbe's client at /sandbox/llm/v1, from the prompt's knowledge and with the handover tool", async () => {
    const ask = (question: string) =>
      chatCompletion({
        baseUrl: sandboxLlmBaseUrl(origin),
        apiKey: "sk-anything",
        model: SANDBOX_LLM_MODEL,
        messages: [
          { role: "system", content: "Answer from these passages.\n[K1] Delivery in Nairobi costs KES 200." },
          { role: "user", content: question },
        ],
        tools: [{ name: "handover", description: "Hand over to a person.", parameters: { type: "object", properties: {} } }],
        timeoutMs: 5_000,
      });
    expect(await ask("How much is delivery?")).toMatchObject({ kind: "answer", content: "Delivery in Nairobi costs KES 200." });
    expect(await ask("customer care please")).toMatchObject({ kind: "tool", name: "handover", arguments: { reason: "customer_asked" } });
    expect(await ask("magic:quota")).toMatchObject({ kind: "failed", reason: "quota" });
  });

  it("asks for the sandbox token on the console and the control API, and sets the console's style under the CSP nonce", async () => {
    expect((await fetch(`${origin}/sandbox/llm/control/requests`)).status).toBe(401);
    expect((await fetch(`${origin}/sandbox/llm`, { headers: { accept: "text/html" } })).status).toBe(401);
    const requests = await fetch(`${origin}/sandbox/llm/control/requests`, { headers: { "x-sandbox-token": TOKEN } });
    expect(requests.status).toBe(200);
    expect(((await requests.json()) as { requests: unknown[] }).requests.length).toBeGreaterThan(0);
    const console = await fetch(`${origin}/sandbox/llm`, { headers: { accept: "text/html", "x-sandbox-token": TOKEN } });
    expect(console.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(console.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    expect(await console.text()).toContain(`<style nonce="${nonce}">`);
  });

  it("answers only at the lower-case prefix", async () => {
    for (const path of ["/Sandbox/llm/v1/models", "/sandbox/LLM/v1/models"])
      expect((await fetch(`${origin}${path}`, { headers: { Authorization: "Bearer k" } })).status, path).toBe(404);
    expect((await fetch(`${origin}/sandbox/llm/v1/models`, { headers: { Authorization: "Bearer k" } })).status).toBe(200);
  });
});
