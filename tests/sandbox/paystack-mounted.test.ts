import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { paystackClient, verifyPaystackSignature } from "~/.server/infrastructure/clients/paystack";
import { createApp } from "../../server";
import { createPaystackSandbox, type PaystackSandbox } from "@jumbe/sandbox/paystack/index";
import { startReceiver } from "@jumbe/sandbox/paystack/test-support";

// The sandbox inside Jumbe's own Express app: its security headers (the CSP nonce on the
// checkout's style), APP_URL's host check for pages, body limits and the case-sensitive prefix.
let server: Server;
let sandbox: PaystackSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let origin: string;
const before = env();

beforeAll(async () => {
  setEnv(parseEnv({ ...process.env, NODE_ENV: "test", SANDBOX: "1" }));
  receiver = await startReceiver();
  sandbox = createPaystackSandbox({
    secretKey: env().PAYSTACK_SECRET_KEY,
    webhookUrl: receiver.url,
    webhookDelayMs: 0,
    merchantName: env().INVOICE_SELLER_NAME,
    publicOrigin: () => env().APP_URL,
  });
  const noPages = async (): Promise<ServerBuild> => {
    throw new Error("no React Router pages in this test");
  };
  server = createApp(noPages, { paystackSandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // As startServer does once the port is known: APP_URL names the real port.
  setEnv({ ...env(), APP_URL: origin, PAYSTACK_BASE_URL: `${origin}/sandbox/paystack` });
});

afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await receiver?.close();
  setEnv(before);
});

describe("the Paystack sandbox in Jumbe's app", () => {
  it("takes a card top-up from initialize through the checkout to a signed webhook and a verified success", async () => {
    const client = paystackClient();
    const started = await client.initializeTransaction({
      email: "owner@duka.co.ke",
      amountCents: 100_000,
      reference: "jmb-mounted-1",
      callbackUrl: `${origin}/billing?card=return`,
    });
    expect(started.authorizationUrl).toBe(`${origin}/sandbox/paystack/checkout/${started.accessCode}`);

    const checkout = await fetch(started.authorizationUrl, { headers: { Accept: "text/html" } });
    expect(checkout.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(checkout.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    const html = await checkout.text();
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).toContain(env().INVOICE_SELLER_NAME);

    const paid = await fetch(started.authorizationUrl, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
      body: "number=4084+0840+8408+4081&expiry=12%2F39&cvv=408",
      redirect: "manual",
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`${origin}/billing?card=return&trxref=jmb-mounted-1&reference=jmb-mounted-1`);

    await sandbox.flushWebhooks();
    const hook = receiver.received[0]!;
    expect(verifyPaystackSignature(hook.body, hook.headers["x-paystack-signature"] as string)).toBe(true);
    expect(await client.verifyTransaction("jmb-mounted-1")).toMatchObject({ status: "success", amountCents: 100_000, cardLast4: "4081" });
  });

  it("answers only at the lower-case prefix", async () => {
    for (const path of ["/Sandbox/paystack/control/transactions", "/sandbox/Paystack/control/transactions"]) {
      expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${origin}/sandbox/paystack/control/transactions`)).status).toBe(200);
  });
});
