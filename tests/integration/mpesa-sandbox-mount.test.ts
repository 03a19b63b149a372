import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_MPESA_CONSUMER_KEY,
  DEMO_MPESA_CONSUMER_SECRET,
  DEMO_MPESA_PASSKEY,
  DEMO_MPESA_SHORTCODE,
  env,
  parseEnv,
  setEnv,
} from "~/.server/infrastructure/config/env";
import { createApp } from "../../server";
import { createMpesaSandbox, type MpesaSandbox } from "@jumbe/sandbox/mpesa/index";
import { rawRequest } from "../support/raw-http";

// The M-Pesa sandbox behind the app's own Express stack (host checks, body limits, origin checks):
// Jumbe's Daraja client calls it at 127.0.0.1 while APP_URL names another host; people open its pages at APP_URL's.
let server: Server;
let sandbox: MpesaSandbox;
let origin: string;
let base: string;

beforeAll(async () => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://localhost:3999", SANDBOX: "1" }));
  sandbox = createMpesaSandbox({
    consumerKey: DEMO_MPESA_CONSUMER_KEY,
    consumerSecret: DEMO_MPESA_CONSUMER_SECRET,
    shortcode: DEMO_MPESA_SHORTCODE,
    passkey: DEMO_MPESA_PASSKEY,
    callbackDelayMs: 0,
  });
  const build = async () => ({}) as ServerBuild;
  server = createApp(build, { mpesaSandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `${origin}/sandbox/mpesa`;
});

afterAll(async () => {
  await sandbox.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the M-Pesa sandbox mounted in createApp", () => {
  it("answers Daraja's OAuth and STK push at 127.0.0.1, and its console and phone page", async () => {
    const auth = Buffer.from(`${DEMO_MPESA_CONSUMER_KEY}:${DEMO_MPESA_CONSUMER_SECRET}`).toString("base64");
    const token = await fetch(`${base}/oauth/v1/generate?grant_type=client_credentials`, { headers: { Authorization: `Basic ${auth}` } });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const answer = await fetch(`${base}/mpesa/stkpush/v1/processrequest`, {
      method: "POST",
      headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({}),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid BusinessShortCode" });
    for (const path of ["/sandbox/mpesa", "/sandbox/mpesa/phone"]) {
      const page = await rawRequest(origin, { method: "GET", path, headers: { accept: "text/html", host: new URL(env().APP_URL).host } });
      expect(page.status, path).toBe(200);
      expect(page.body).toContain("M-Pesa (Daraja) · sandbox");
    }
    const upper = await fetch(`${base.replace("/mpesa", "/MPESA")}/oauth/v1/generate?grant_type=client_credentials`);
    expect(upper.status).toBe(404);
  });
});
