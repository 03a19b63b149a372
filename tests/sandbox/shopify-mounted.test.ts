import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import {
  SHOPIFY_SCOPES,
  SHOPIFY_TOPICS,
  shopifyClient,
  shopifyCustomerPhone,
  shopifyInstallUrl,
  verifyInstallQuery,
  verifyWebhook,
} from "~/.server/infrastructure/clients/shopify";
import { createApp } from "../../server";
import { createShopifySandbox, type ShopifySandbox } from "@jumbe/sandbox/shopify/index";
import { startWebhookReceiver } from "@jumbe/sandbox/test-receiver";

// Jumbe's Shopify client and checks against the sandbox inside Jumbe's own Express app.
const SHOP = "duka-bora.myshopify.com";
let server: Server;
let sandbox: ShopifySandbox;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let origin: string;
const before = env();

beforeAll(async () => {
  setEnv(parseEnv({ ...process.env, NODE_ENV: "test", SANDBOX: "1" }));
  receiver = await startWebhookReceiver("/webhooks/shopify");
  sandbox = createShopifySandbox({
    clientId: env().SHOPIFY_CLIENT_ID!,
    clientSecret: env().SHOPIFY_CLIENT_SECRET!,
    webhookDelayMs: 0,
    webhookAttempts: 2,
    slowMs: 5_000,
  });
  const noPages = async (): Promise<ServerBuild> => {
    throw new Error("no React Router pages in this test");
  };
  server = createApp(noPages, { shopifySandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const shops = `${origin}/sandbox/shopify/shops/{shop}`;
  setEnv({ ...env(), APP_URL: origin, SHOPIFY_AUTH_URL: shops, SHOPIFY_API_URL: shops });
});

afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await receiver?.close();
  setEnv(before);
});

/** The install as a merchant's browser does it, without JavaScript: the grant page, then its form. */
async function install(state = "nonce-7") {
  const page = await fetch(shopifyInstallUrl({ shop: SHOP, redirectUri: `${origin}/integrations/shopify/callback`, state }));
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]),
  );
  const posted = await fetch(`${origin}${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...hidden, decision: "install" }).toString(),
    redirect: "manual",
  });
  expect(posted.status).toBe(303);
  return new URL(posted.headers.get("location")!).searchParams;
}

describe("Jumbe's Shopify client against the mounted sandbox", () => {
  it("installs: the redirect's hmac verifies, the code gives a token, the topics are subscribed", async () => {
    const query = await install();
    expect(query.get("shop")).toBe(SHOP);
    expect(verifyInstallQuery(query)).toBe(true);
    const forged = new URLSearchParams(query);
    forged.set("state", "another");
    expect(verifyInstallQuery(forged)).toBe(false);

    const client = shopifyClient();
    const { accessToken, scopes } = await client.exchangeCode(SHOP, query.get("code")!);
    expect(scopes).toEqual([...SHOPIFY_SCOPES]);
    const hooks = await client.subscribeAll(SHOP, accessToken, receiver.url);
    expect(hooks.map((h) => h.topic).sort()).toEqual([...SHOPIFY_TOPICS].sort());
    expect((await client.subscribeAll(SHOP, accessToken, receiver.url)).length).toBe(SHOPIFY_TOPICS.length);
    const again = await client.subscribe(SHOP, accessToken, { topic: "orders/create", address: receiver.url }).catch((e: unknown) => e);
    expect(again).toMatchObject({ kind: "conflict", message: expect.stringContaining("already been taken") });
    expect(await client.exchangeCode(SHOP, query.get("code")!).catch((e: unknown) => e)).toMatchObject({ kind: "revoked" });
  });

  it("receives orders, fulfilments and checkouts whose signature verifies, with the customer's phone in E.164", async () => {
    receiver.received.length = 0;
    sandbox.createOrder(SHOP, { phone: "0712 345 678" });
    const { order } = sandbox.createOrder(SHOP, { customer: { first_name: "Juma", phone: "254722000111" } });
    sandbox.createFulfillment(Number(order.id), { tracking_number: "KE-7781", shipping_address: { phone: "x" } });
    sandbox.createCheckout(SHOP, { shipping_address: { first_name: "Achieng", phone: "+254 733 123 456" } });
    sandbox.createCheckout(SHOP, { billing_address: { first_name: "Mary", phone: "0110 123 456" } });
    await sandbox.flushWebhooks();

    const byTopic = (topic: string) => receiver.received.filter((r) => r.headers["x-shopify-topic"] === topic);
    for (const hook of receiver.received)
      expect(verifyWebhook(hook.body, hook.headers["x-shopify-hmac-sha256"] as string), String(hook.headers["x-shopify-topic"])).toBe(true);
    expect(byTopic("orders/create").map((r) => shopifyCustomerPhone(JSON.parse(r.body)))).toEqual(["+254712345678", "+254722000111"]);
    expect(JSON.parse(byTopic("fulfillments/create")[0]!.body)).toMatchObject({ tracking_number: "KE-7781", order_id: order.id });
    expect(byTopic("checkouts/create").map((r) => shopifyCustomerPhone(JSON.parse(r.body)))).toEqual(["+254733123456", "+254110123456"]);
  });

  it("a duplicate carries the same event id; a badly signed webhook does not verify", async () => {
    receiver.received.length = 0;
    sandbox.createOrder(SHOP, { phone: "0712345678", delivery: "duplicate" });
    sandbox.createOrder(SHOP, { phone: "0712345678", delivery: "bad_signature" });
    await sandbox.flushWebhooks();
    const [first, second, forged] = receiver.received;
    expect(first!.headers["x-shopify-event-id"]).toBe(second!.headers["x-shopify-event-id"]);
    expect(verifyWebhook(forged!.body, forged!.headers["x-shopify-hmac-sha256"] as string)).toBe(false);
  });

  it("reads GraphQL's throttling (the wait from its cost), a 5xx, and the 401 once the app is removed", async () => {
    const client = shopifyClient();
    const { accessToken } = await client.exchangeCode(SHOP, (await install()).get("code")!);
    sandbox.queueFault("429");
    // GraphQL throttles with a 200 and THROTTLED: the wait is the query's cost less what is left, at the restore rate.
    expect(await client.listWebhooks(SHOP, accessToken).catch((e: unknown) => e)).toMatchObject({
      kind: "rate_limited",
      message: expect.stringContaining("Throttled"),
      retryAfterMs: 100,
    });
    sandbox.queueFault("500");
    expect(await client.listWebhooks(SHOP, accessToken).catch((e: unknown) => e)).toMatchObject({ kind: "server" });
    sandbox.uninstall(SHOP);
    expect(await client.listWebhooks(SHOP, accessToken).catch((e: unknown) => e)).toMatchObject({ kind: "expired_token", httpStatus: 401 });
    expect(() => shopifyInstallUrl({ shop: "127.0.0.1", redirectUri: origin, state: "s" })).toThrow(/myshopify/);
  });
});
