import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { africastalkingClient } from "~/.server/infrastructure/clients/africastalking";
import { createApp } from "../../server";
import { createAfricastalkingSandbox, type AfricastalkingSandbox } from "@jumbe/sandbox/africastalking/index";
import {
  DEMO_SMS_API_KEY,
  DEMO_SMS_SENDER_ID,
  DEMO_SMS_SHORTCODE,
  DEMO_SMS_USERNAME,
  demoSmsAccount,
} from "@jumbe/sandbox/africastalking/demo-account";
import { startWebhookReceiver } from "@jumbe/sandbox/test-receiver";

// The sandbox inside Jumbe's own Express app, as sandbox mode mounts it: its security headers (the CSP
// nonce on the console's style), Jumbe's CSRF and form checks leaving the SMS API and its forms alone,
// and the case-sensitive prefix.
let server: Server;
let sandbox: AfricastalkingSandbox;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let origin: string;
const before = env();

beforeAll(async () => {
  setEnv(parseEnv({ ...process.env, NODE_ENV: "test", SANDBOX: "1" }));
  receiver = await startWebhookReceiver("/webhooks/africastalking");
  sandbox = createAfricastalkingSandbox({
    accounts: [{ ...demoSmsAccount(), deliveryReportUrl: `${receiver.url}/delivery`, incomingUrl: `${receiver.url}/incoming` }],
    callbackDelayMs: 0,
  });
  const noPages = async (): Promise<ServerBuild> => {
    throw new Error("no React Router pages in this test");
  };
  server = createApp(noPages, { africastalkingSandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // As startServer does once the port is known.
  setEnv({ ...env(), APP_URL: origin, AFRICASTALKING_BASE_URL: `${origin}/sandbox/africastalking` });
});

afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await receiver?.close();
  setEnv(before);
});

describe("the Africa's Talking sandbox in Jumbe's app", () => {
  it("sends through Jumbe's client at the configured base URL and posts the delivery report", async () => {
    const result = await africastalkingClient().sendSms({
      username: DEMO_SMS_USERNAME,
      apiKey: DEMO_SMS_API_KEY,
      from: DEMO_SMS_SENDER_ID,
      to: ["+254712345678"],
      message: "Agizo lako limepokelewa",
      enqueue: true,
    });
    expect(result.recipients).toMatchObject([{ statusCode: 101, accepted: true, costCents: 80 }]);
    await sandbox.flush();
    expect(Object.fromEntries(new URLSearchParams(receiver.received.at(-1)!.body))).toMatchObject({
      id: result.recipients[0]!.messageId,
      status: "Success",
    });
  });

  it("serves the console under the CSP nonce and takes its forms (no JavaScript) past Jumbe's checks", async () => {
    const page = await fetch(`${origin}/sandbox/africastalking`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(page.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    expect(await page.text()).toContain(`<style nonce="${nonce}">`);
    const sent = await fetch(`${origin}/sandbox/africastalking/console/incoming`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
      body: new URLSearchParams({ from: "+254712345678", to: DEMO_SMS_SHORTCODE, text: "Habari" }).toString(),
      redirect: "manual",
    });
    expect(sent.status).toBe(303);
    await sandbox.flush();
    expect(Object.fromEntries(new URLSearchParams(receiver.received.at(-1)!.body))).toMatchObject({
      from: "+254712345678",
      text: "Habari",
    });
  });

  it("answers only at the lower-case prefix", async () => {
    for (const path of ["/Sandbox/africastalking/control/messages", "/sandbox/AfricasTalking/control/messages"]) {
      expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${origin}/sandbox/africastalking/control/messages`)).status).toBe(200);
  });
});
