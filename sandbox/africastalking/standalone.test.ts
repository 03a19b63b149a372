import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../test-receiver";
import { DEMO_SMS_API_KEY, DEMO_SMS_USERNAME } from "./demo-account";
import { createStandaloneSandbox, startStandaloneSandbox } from "./standalone";

// The Africa's Talking sandbox as its own process: configured from the environment, serving under its public path.

const TOKEN = "standalone-africastalking-control-token-0123";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const send = (base: string, fields: Record<string, string>, key = DEMO_SMS_API_KEY) =>
  fetch(`${base}/version1/messaging`, {
    method: "POST",
    headers: { apikey: key, Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: DEMO_SMS_USERNAME, bulkSMSMode: "1", ...fields }).toString(),
  });

describe("the standalone Africa's Talking sandbox", () => {
  it("takes the demo application's sends under its public path and sends delivery reports to the URL the control API sets", async () => {
    const receiver = await startWebhookReceiver("/webhooks/sms/delivery");
    cleanups.push(receiver.close);
    const started = await startStandaloneSandbox({
      PORT: "0",
      AT_SANDBOX_PUBLIC_PATH: "/at/",
      AT_SANDBOX_CALLBACK_DELAY_MS: "0",
      SANDBOX_CONTROL_TOKEN: TOKEN,
    });
    cleanups.unshift(started.close);
    expect(started.publicPath).toBe("/at");
    const base = `http://127.0.0.1:${started.port}/at`;
    expect(await (await fetch(`http://127.0.0.1:${started.port}/healthz`)).json()).toEqual({ status: "ok" });

    // The control API asks for the token; with it, the demo application's report URL is set.
    expect((await fetch(`${base}/control/accounts`)).status).toBe(401);
    const control = { "X-Sandbox-Token": TOKEN, "Content-Type": "application/json" };
    const { accounts } = (await (await fetch(`${base}/control/accounts`, { headers: control })).json()) as {
      accounts: { username: string; senderIds: string[]; shortcodes: string[] }[];
    };
    expect(accounts.map((a) => a.username)).toEqual([DEMO_SMS_USERNAME]);
    const changed = await fetch(`${base}/control/accounts/${DEMO_SMS_USERNAME}`, {
      method: "PUT",
      headers: control,
      body: JSON.stringify({
        senderIds: accounts[0]!.senderIds,
        shortcodes: accounts[0]!.shortcodes,
        apiKey: DEMO_SMS_API_KEY,
        balanceKes: 50,
        deliveryReportUrl: receiver.url,
      }),
    });
    expect(changed.status).toBe(200);

    // A wrong key is refused as AT refuses it; the demo key sends, and the report reaches the receiver.
    expect((await send(base, { to: "+254712345678", message: "Habari", from: "JUMBE" }, "atsk_wrong_key_0000000000")).status).toBe(401);
    const sent = await send(base, { to: "+254712345678", message: "Habari", from: "JUMBE" });
    expect(sent.status).toBe(201);
    const [recipient] = ((await sent.json()) as { SMSMessageData: { Recipients: { status: string; messageId: string }[] } }).SMSMessageData
      .Recipients;
    expect(recipient!.status).toBe("Success");
    await started.sandbox.flush();
    const reports = receiver.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)));
    expect(reports.map((r) => r.id)).toContain(recipient!.messageId);
    const total = (await (await fetch(`${base}/control/messages`, { headers: control })).json()) as { accepted: number };
    expect(total.accepted).toBe(1);
    expect((await fetch(`http://127.0.0.1:${started.port}/sandbox/africastalking/version1/messaging`, { method: "POST" })).status).toBe(
      404,
    );
  });

  it("refuses settings it cannot use", () => {
    expect(() => createStandaloneSandbox({ SANDBOX_CONTROL_TOKEN: "short" })).toThrow(/SANDBOX_CONTROL_TOKEN/);
    expect(() => createStandaloneSandbox({ PORT: "99999" })).toThrow(/PORT/);
    expect(() => createStandaloneSandbox({ AT_SANDBOX_CALLBACK_DELAY_MS: "soon" })).toThrow(/AT_SANDBOX_CALLBACK_DELAY_MS/);
    expect(createStandaloneSandbox({}).publicPath).toBe("/sandbox/africastalking");
  });

  const built = path.resolve(import.meta.dirname, "../../build/server/africastalking-sandbox.js");
  it.skipIf(!existsSync(built))("runs as its own process from the build", async () => {
    const child = spawn(process.execPath, [built], {
      env: { PATH: process.env.PATH, PORT: "0", HOST: "127.0.0.1" },
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
        const match = /AFRICASTALKING_BASE_URL=(\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const { accounts } = (await (await fetch(`${base}/control/accounts`)).json()) as { accounts: { username: string }[] };
    expect(accounts.map((a) => a.username)).toEqual([DEMO_SMS_USERNAME]);
  });
});
