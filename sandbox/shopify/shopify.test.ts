import { afterEach, describe, expect, it } from "vitest";
import { installHmac, shopifyWebhookHmac } from "./index";
import { CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, SCOPES, SHOP, startShopify, type ShopifyHarness } from "./test-support";

let h: ShopifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("the install", () => {
  it("shows the grant page without JavaScript and redirects with a signed query", async () => {
    h = await startShopify();
    const query = new URLSearchParams({ client_id: CLIENT_ID, scope: SCOPES, redirect_uri: REDIRECT_URI, state: "n1" });
    const html = await (await fetch(`${h.base}/shops/${SHOP}/admin/oauth/authorize?${query}`)).text();
    expect(html).toContain(`<form method="post" action="/sandbox/shopify/shops/${SHOP}/admin/oauth/authorize"`);
    expect(html).toContain("read_orders");
    const back = await h.install(SHOP, "n1");
    const params = Object.fromEntries(back.searchParams);
    expect(params).toMatchObject({
      shop: SHOP,
      state: "n1",
      code: expect.any(String),
      timestamp: expect.stringMatching(/^\d{10}$/),
      hmac: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(installHmac(params, CLIENT_SECRET)).toBe(params.hmac);
    expect(installHmac({ ...params, shop: "evil.myshopify.com" }, CLIENT_SECRET)).not.toBe(params.hmac);
    expect((await fetch(`${h.base}/shops/not-a-shop.example/admin/oauth/authorize?${query}`)).status).toBe(404);
  });

  it("exchanges a code once for an offline token", async () => {
    h = await startShopify();
    const code = (await h.install()).searchParams.get("code")!;
    const first = await h.accessToken(SHOP, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code });
    expect(first.json).toMatchObject({ access_token: expect.stringMatching(/^shpat_/), scope: SCOPES });
    const again = await h.accessToken(SHOP, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe("invalid_request");
    const shop = await h.admin<Json>("/shop.json", first.json.access_token);
    expect(shop.json.shop).toMatchObject({ myshopify_domain: SHOP, currency: "KES" });
    expect((await h.admin<Json>("/shop.json", "shpat_nope")).json.errors).toContain("Invalid API key or access token");
  });
});

describe("webhook subscriptions", () => {
  it("creates, lists and deletes them, with Shopify's 422s", async () => {
    h = await startShopify();
    const token = await h.connect();
    await h.subscribe(token, ["orders/create", "app/uninstalled"]);
    const listed = await h.admin<Json>("/webhooks.json", token);
    expect(listed.json.webhooks.map((w: Json) => w.topic)).toEqual(["orders/create", "app/uninstalled"]);
    expect(listed.json.webhooks[0]).toMatchObject({ address: h.receiver.url, format: "json", api_version: "2025-10" });
    const taken = await h.admin<Json>("/webhooks.json", token, { body: { webhook: { topic: "orders/create", address: h.receiver.url } } });
    expect(taken.status).toBe(422);
    expect(taken.json.errors.address).toEqual(["for this topic has already been taken"]);
    const badTopic = await h.admin<Json>("/webhooks.json", token, {
      body: { webhook: { topic: "orders/eaten", address: "http://example.com/x" } },
    });
    expect(badTopic.status).toBe(422);
    expect(badTopic.json.errors.topic[0]).toContain("Invalid topic specified: orders/eaten");
    expect((await h.admin(`/webhooks/${listed.json.webhooks[0].id}.json`, token, { method: "DELETE" })).status).toBe(200);
    expect((await h.admin<Json>("/webhooks/count.json", token)).json.count).toBe(1);
  });
});

describe("store events as signed webhooks", () => {
  it("delivers an order, a fulfilment and a checkout with Shopify's headers, retrying on failure", async () => {
    h = await startShopify();
    const token = await h.connect();
    await h.subscribe(token, ["orders/create", "fulfillments/create", "checkouts/create"]);
    h.receiver.answer(500);
    const order = await h.control<Json>(`/shops/${SHOP}/orders`, {
      body: { phone: "0712 345 678", customer: { first_name: "Wanjiku", phone: "+254712345678" } },
    });
    expect(order.status).toBe(201);
    expect(order.json.order).toMatchObject({ name: "#1001", phone: "0712 345 678", customer: { phone: "+254712345678" }, currency: "KES" });
    await h.control(`/orders/${order.json.order.id}/fulfillments`, { body: { tracking_number: "KE123" } });
    await h.control(`/shops/${SHOP}/checkouts`, { body: { shipping_address: { first_name: "Juma", phone: "254722000111" } } });
    await h.control("/webhooks/flush", { method: "POST" });

    // The first orders/create was refused and retried: four deliveries, the retry among the others.
    const topics = h.receiver.received.map((r) => String(r.headers["x-shopify-topic"]));
    expect(topics.sort()).toEqual(["checkouts/create", "fulfillments/create", "orders/create", "orders/create"]);
    const bodyOf = (topic: string) => JSON.parse(h!.receiver.received.find((r) => r.headers["x-shopify-topic"] === topic)!.body);
    for (const hook of h.receiver.received) {
      expect(hook.headers["x-shopify-hmac-sha256"]).toBe(shopifyWebhookHmac(hook.body, CLIENT_SECRET));
      expect(hook.headers).toMatchObject({ "x-shopify-shop-domain": SHOP, "x-shopify-api-version": "2025-10" });
      expect(hook.headers["x-shopify-event-id"]).toBeTruthy();
      expect(hook.headers["x-shopify-webhook-id"]).toBeTruthy();
      expect(Date.parse(String(hook.headers["x-shopify-triggered-at"]))).not.toBeNaN();
    }
    expect(bodyOf("fulfillments/create")).toMatchObject({ tracking_number: "KE123", destination: null });
    expect(bodyOf("checkouts/create")).toMatchObject({ completed_at: null, shipping_address: { phone: "254722000111" } });
    expect(h.sandbox.webhooks()[0]!.attempts.map((a) => a.status)).toEqual([500, 200]);
  });

  it("delivers twice with one event id, or with a bad signature, on request", async () => {
    h = await startShopify();
    const token = await h.connect();
    await h.subscribe(token, ["orders/create"]);
    h.sandbox.createOrder(SHOP, { phone: "0712345678", delivery: "duplicate" });
    h.sandbox.createOrder(SHOP, { phone: "0712345678", delivery: "bad_signature" });
    await h.sandbox.flushWebhooks();
    const [a, b, c] = h.receiver.received;
    expect(a!.headers["x-shopify-event-id"]).toBe(b!.headers["x-shopify-event-id"]);
    expect(a!.body).toBe(b!.body);
    expect(c!.headers["x-shopify-hmac-sha256"]).not.toBe(shopifyWebhookHmac(c!.body, CLIENT_SECRET));
  });

  it("removing the app sends app/uninstalled and ends its token", async () => {
    h = await startShopify();
    const token = await h.connect();
    await h.subscribe(token, ["app/uninstalled"]);
    await h.control(`/shops/${SHOP}/uninstall`, { method: "POST" });
    await h.sandbox.flushWebhooks();
    expect(JSON.parse(h.receiver.received[0]!.body)).toMatchObject({ myshopify_domain: SHOP });
    expect((await h.admin("/webhooks.json", token)).status).toBe(401);
  });
});

describe("faults", () => {
  it("answers the magic values and queued faults", async () => {
    h = await startShopify({ slowMs: 20 });
    const token = await h.connect();
    const limited = await h.admin<Json>("/webhooks.json?topic=magic-429", token);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2.0");
    expect((await h.admin("/webhooks.json?topic=magic-500", token)).status).toBe(500);
    expect((await h.admin("/webhooks.json?topic=magic-401", token)).status).toBe(401);
    expect((await h.admin("/webhooks.json?topic=magic-slow", token)).status).toBe(200);
    h.sandbox.queueFault("429", 1);
    expect((await h.admin("/shop.json", token)).status).toBe(429);
    expect((await h.admin("/shop.json", token)).status).toBe(200);
  });
});
