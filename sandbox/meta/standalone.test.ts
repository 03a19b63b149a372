import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sendingFromEnv } from "./env-options";
import { createStandaloneSandbox, startStandaloneSandbox } from "./standalone";
import { APP_ID, APP_SECRET, startReceiver, statusesOf } from "./test-support";

// The sandbox as its own process: configured from the environment, serving under its public path.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function start(env: Record<string, string>) {
  const receiver = await startReceiver();
  cleanups.push(receiver.close);
  const started = await startStandaloneSandbox({
    PORT: "0",
    META_APP_ID: APP_ID,
    META_APP_SECRET: APP_SECRET,
    META_SANDBOX_WEBHOOK_URL: receiver.url,
    META_SANDBOX_STATUS_DELAYS_MS: "0,0,0",
    ...env,
  });
  cleanups.unshift(started.close);
  return { ...started, receiver, base: `http://127.0.0.1:${started.port}${started.publicPath}` };
}

/** A registered test business, its token from the code exchange, and a customer who wrote first (the service window is open). */
async function businessWithOpenWindow(s: Awaited<ReturnType<typeof start>>) {
  const business = s.sandbox.createTestBusiness({ registered: true });
  const code = s.sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
  const { access_token: token } = (await (
    await fetch(`${s.base}/graph/v25.0/oauth/access_token?client_id=${APP_ID}&client_secret=${APP_SECRET}&code=${code}`)
  ).json()) as { access_token: string };
  await fetch(`${s.base}/control/inbound`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumberId: business.phoneNumberId, from: "254712345678", text: "Habari" }),
  });
  return { business, token };
}

describe("the standalone Meta sandbox", () => {
  it("serves the Graph API, the control API and the console under its public path, and sends webhooks to the configured URL", async () => {
    const s = await start({ META_SANDBOX_PUBLIC_PATH: "/meta", META_SANDBOX_THROUGHPUT: "0", META_SANDBOX_PAIR_RATE: "0" });
    expect(s.publicPath).toBe("/meta");
    expect(await (await fetch(`http://127.0.0.1:${s.port}/healthz`)).json()).toEqual({ status: "ok" });

    const { business, token } = await businessWithOpenWindow(s);
    const sent = await fetch(`${s.base}/graph/v25.0/${business.phoneNumberId}/messages`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", to: "254712345678", type: "text", text: { body: "Karibu" } }),
    });
    expect(sent.status).toBe(200);
    await s.sandbox.flushWebhooks();
    expect(statusesOf(s.receiver.received).map((st) => st.status)).toEqual(["sent", "delivered", "read"]);

    const consolePage = await fetch(s.base);
    expect(consolePage.status).toBe(200);
    expect(consolePage.headers.get("content-security-policy")).toMatch(/script-src 'nonce-/);
    expect(await consolePage.text()).toContain("Messages sent");
    const unknown = await fetch(`http://127.0.0.1:${s.port}/elsewhere`);
    expect(unknown.status).toBe(404);
  });

  it("answers Graph's send endpoint without Express exactly as through it, bad bodies included", async () => {
    const s = await start({ META_SANDBOX_THROUGHPUT: "0", META_SANDBOX_PAIR_RATE: "0" });
    const { business, token } = await businessWithOpenWindow(s);
    const sendUrl = `${s.base}/graph/v25.0/${business.phoneNumberId}/messages`;
    // A query string takes the request past the fast path, to the Express router.
    const paths = { fast: sendUrl, express: `${sendUrl}?via=express` };
    const send = async (url: string, body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
        body,
      });
      const json = (await response.json()) as {
        messages?: { id: string }[];
        error?: { code: number; message: string; fbtrace_id: string };
      };
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        version: response.headers.get("facebook-api-version"),
        cache: response.headers.get("cache-control"),
        trace: response.headers.get("x-fb-trace-id"),
        json,
      };
    };
    const text = JSON.stringify({ messaging_product: "whatsapp", to: "254712345678", type: "text", text: { body: "Karibu" } });
    for (const url of Object.values(paths)) {
      const sent = await send(url, text);
      expect(sent).toMatchObject({ status: 200, type: "application/json; charset=utf-8", version: "v25.0", cache: "no-store" });
      expect(sent.trace).toMatch(/^[A-Za-z0-9]{11}$/);
      expect(sent.json.messages?.[0]?.id).toMatch(/^wamid\./);
    }
    const outcomes = async (body: string, headers?: Record<string, string>) => {
      const fast = await send(paths.fast, body, headers);
      const express = await send(paths.express, body, headers);
      expect({ ...fast, trace: null, json: { ...fast.json.error, fbtrace_id: null } }).toEqual({
        ...express,
        trace: null,
        json: { ...express.json.error, fbtrace_id: null },
      });
      return fast;
    };
    // Malformed JSON, a JSON value that is not an object, and more than a megabyte: Graph's envelope.
    for (const body of ["{not json", '"just a string"']) {
      const refused = await outcomes(body);
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: 100, message: "(#100) The request body could not be parsed." });
    }
    const huge = JSON.stringify({ messaging_product: "whatsapp", to: "254712345678", type: "text", text: { body: "x".repeat(1_100_000) } });
    expect((await outcomes(huge)).status).toBe(413);
    // No token, or a charset the fast path leaves to Express: the same answers as the router's.
    const unauthorised = await outcomes(text, { Authorization: "Bearer nope" });
    expect(unauthorised.status).toBe(401);
    expect((await send(paths.fast, text, { "Content-Type": "application/json; charset=utf-16" })).status).toBe(
      (await send(paths.express, text, { "Content-Type": "application/json; charset=utf-16" })).status,
    );
    // Both are in the console's call log, the fast path's as "messages.send".
    const logged = s.sandbox.calls().filter((c) => c.path.includes("/messages"));
    expect(logged.filter((c) => c.step === "messages.send" && c.status === 200)).toHaveLength(2);
  });

  it("asks for SANDBOX_CONTROL_TOKEN when set, and refuses bad settings", async () => {
    const token = "x".repeat(40);
    const s = await start({ SANDBOX_CONTROL_TOKEN: token });
    expect((await fetch(`${s.base}/control/state`)).status).toBe(401);
    expect((await fetch(`${s.base}/control/state`, { headers: { "x-sandbox-token": token } })).status).toBe(200);

    expect(() => createStandaloneSandbox({ PORT: "http" })).toThrow(/PORT/);
    expect(() => createStandaloneSandbox({ SANDBOX_CONTROL_TOKEN: "short" })).toThrow(/SANDBOX_CONTROL_TOKEN/);
    expect(() => sendingFromEnv({ META_SANDBOX_STATUS_DELAYS_MS: "200,800" })).toThrow(/META_SANDBOX_STATUS_DELAYS_MS/);
    expect(() => sendingFromEnv({ META_SANDBOX_THROUGHPUT: "-1" })).toThrow(/META_SANDBOX_THROUGHPUT/);
    expect(() => sendingFromEnv({ META_SANDBOX_PAIR_RATE: "maybe" })).toThrow(/META_SANDBOX_PAIR_RATE/);
    expect(() => sendingFromEnv({ META_SANDBOX_REENGAGEMENT: "later" })).toThrow(/META_SANDBOX_REENGAGEMENT/);
    expect(sendingFromEnv({ META_SANDBOX_REENGAGEMENT: "sync" })).toEqual({ reengagement: "sync" });
    expect(sendingFromEnv({ META_SANDBOX_STATUS_DELAYS_MS: "1, 2, 3", META_SANDBOX_THROUGHPUT: "0", META_SANDBOX_PAIR_RATE: "0" })).toEqual(
      {
        statusDelaysMs: { sent: 1, delivered: 2, read: 3 },
        throughputPerSecond: 0,
        pairRateLimit: false,
      },
    );
  });

  const built = path.resolve(import.meta.dirname, "../../build/server/meta-sandbox.js");
  it.skipIf(!existsSync(built))("runs as its own process from the build", async () => {
    const child = spawn(process.execPath, [built], {
      env: { PATH: process.env.PATH, PORT: "0", HOST: "127.0.0.1", META_SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/webhooks/whatsapp" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((resolve) => child.once("exit", resolve));
      }
    });
    const base = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /GRAPH_API_BASE_URL=(\S+)\/graph/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const state = (await (await fetch(`${base}/control/state`)).json()) as { phoneNumbers: unknown[] };
    expect(state.phoneNumbers.length).toBeGreaterThan(0);
  });
});
