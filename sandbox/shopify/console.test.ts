import { afterEach, describe, expect, it } from "vitest";
import { shopifyWebhookHmac } from "./index";
import { CLIENT_SECRET, SHOP, startShopify, type ShopifyHarness } from "./test-support";

let h: ShopifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = "s".repeat(40);

describe("the console", () => {
  it("makes an order with the phone where the form says, and a fulfilment, without JavaScript", async () => {
    h = await startShopify();
    await h.subscribe(await h.connect(), ["orders/create", "fulfillments/create"]);
    const ordered = await h.postForm("/console/orders", {
      shop: SHOP,
      first_name: "Wanjiku",
      last_name: "Kamau",
      phone: "0712 345 678",
      phone_in: "billing_address",
      delivery: "normal",
    });
    expect(ordered.status).toBe(303);
    expect(decodeURIComponent(ordered.headers.get("location")!)).toContain("1 webhook(s) queued");
    await h.sandbox.flushWebhooks();
    const order = JSON.parse(h.receiver.received[0]!.body);
    expect(order).toMatchObject({ phone: null, billing_address: { phone: "0712 345 678" } });
    await h.postForm("/console/fulfillments", { order: String(order.id), tracking_number: "KE-1" });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received[1]!.headers["x-shopify-hmac-sha256"]).toBe(shopifyWebhookHmac(h.receiver.received[1]!.body, CLIENT_SECRET));
    const html = await (await fetch(h.base)).text();
    expect(html).toContain("fulfillments/create");
    expect(html).toContain("installed");
  });

  it("asks for the sandbox token on a demo host; the install and the Admin API stay open", async () => {
    h = await startShopify({ controlToken: TOKEN });
    expect((await fetch(h.base)).status).toBe(401);
    expect((await h.control("/shops")).status).toBe(401);
    const token = await h.connect();
    expect((await h.admin("/shop.json", token)).status).toBe(200);
  });
});
