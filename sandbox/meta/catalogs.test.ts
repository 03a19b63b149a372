import { afterEach, describe, expect, it } from "vitest";
import { messageValues, startSending, type SendingHarness } from "./test-support";

// The Catalog API, product messages checked against the catalog, and the customer's cart.

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CUSTOMER = "254712345678";
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

async function shop() {
  h = await startSending();
  const made = await h.graph(`${h.business.businessId}/owned_product_catalogs`, { ...form({ name: "Duka" }), token: h.token });
  expect(made.status).toBe(200);
  const catalogId = made.json.id as string;
  const linked = await h.graph(`${h.business.wabaId}/product_catalogs`, { ...form({ catalog_id: catalogId }), token: h.token });
  expect(linked.json).toEqual({ success: true });
  const product = (retailerId: string, price: string, extra: Record<string, string> = {}) =>
    h!.graph(`${catalogId}/products`, {
      ...form({
        retailer_id: retailerId,
        name: `Kikoi ${retailerId}`,
        price,
        currency: "KES",
        image_url: "https://example.com/k.jpg",
        ...extra,
      }),
      token: h!.token,
    });
  return { catalogId, product };
}

const productList = (catalogId: string, ids: string[], header: unknown = { type: "text", text: "Mpya" }) => ({
  messaging_product: "whatsapp",
  to: CUSTOMER,
  type: "interactive",
  interactive: {
    type: "product_list",
    ...(header ? { header } : {}),
    body: { text: "Chagua" },
    action: { catalog_id: catalogId, sections: [{ title: "Nguo", product_items: ids.map((id) => ({ product_retailer_id: id })) }] },
  },
});

describe("the Catalog API", () => {
  it("creates, lists, updates and deletes products, refusing bad prices, currencies, duplicates and strangers", async () => {
    const { catalogId, product } = await shop();
    const created = await product("SKU-1", "150000");
    expect(created.status).toBe(200);
    expect((await product("SKU-1", "150000")).json.error?.code).toBe(10800);
    expect((await product("SKU-2", "15.5")).json.error?.message).toMatch(/price/);
    expect((await product("SKU-2", "100", { currency: "kes" })).json.error?.message).toMatch(/currency/);
    expect(
      (await h!.graph(`${catalogId}/products`, { ...form({ retailer_id: "X", price: "1", currency: "KES" }), token: h!.token })).json.error
        ?.message,
    ).toMatch(/name is required/);
    const id = created.json.id as string;
    expect((await h!.graph(id, { ...form({ price: "120000", availability: "out of stock" }), token: h!.token })).json).toEqual({
      success: true,
    });
    const listed = await h!.graph(`${catalogId}/products`, { token: h!.token });
    expect(listed.json.data).toEqual([
      expect.objectContaining({ id, retailer_id: "SKU-1", price: "1200.00 KES", availability: "out of stock" }),
    ]);
    const stranger = h!.sandbox.createTestBusiness({ businessName: "Other" });
    const otherToken = await h!.tokenFor(stranger.businessId, [stranger.wabaId]);
    expect((await h!.graph(`${catalogId}/products`, { token: otherToken })).json.error?.code).toBe(100);
    expect((await h!.graph(id, { method: "DELETE", token: h!.token })).json).toEqual({ success: true });
    expect((await h!.graph(`${catalogId}/products`, { token: h!.token })).json.data).toEqual([]);
    expect((await h!.graph(`${catalogId}/products`, { token: "nope" })).status).toBe(401);
  });

  it("keeps commerce settings per number from query parameters", async () => {
    await shop();
    const path = `${h!.business.phoneNumberId}/whatsapp_commerce_settings`;
    expect((await h!.graph(path, { token: h!.token })).json.data).toEqual([
      expect.objectContaining({ is_cart_enabled: true, is_catalog_visible: false }),
    ]);
    expect((await h!.graph(`${path}?is_catalog_visible=true`, { method: "POST", token: h!.token })).json).toEqual({ success: true });
    expect((await h!.graph(path, { token: h!.token })).json.data).toEqual([expect.objectContaining({ is_catalog_visible: true })]);
    expect((await h!.graph(`${path}?is_cart_enabled=maybe`, { method: "POST", token: h!.token })).status).toBe(400);
  });
});

describe("product messages", () => {
  it("sends products the catalog holds and refuses unknown products, a missing header and too many items", async () => {
    const { catalogId, product } = await shop();
    await product("SKU-1", "150000");
    await h!.customerWrites(CUSTOMER);
    expect((await h!.send(productList(catalogId, ["SKU-1"]))).status).toBe(200);
    const unknown = await h!.send(productList(catalogId, ["SKU-1", "SKU-9"]));
    expect(unknown.json.error).toMatchObject({ code: 131009, error_data: { details: expect.stringMatching(/SKU-9/) } });
    expect((await h!.send(productList(catalogId, ["SKU-1"], null))).json.error).toMatchObject({
      code: 131008,
      error_data: { details: expect.stringMatching(/header/) },
    });
    const many = Array.from({ length: 31 }, () => "SKU-1");
    expect((await h!.send(productList(catalogId, many))).json.error?.code).toBe(131009);
    const single = {
      messaging_product: "whatsapp",
      to: CUSTOMER,
      type: "interactive",
      interactive: { type: "product", action: { catalog_id: "999", product_retailer_id: "SKU-1" } },
    };
    expect((await h!.send(single)).json.error?.code).toBe(131009);
    const catalog = {
      messaging_product: "whatsapp",
      to: CUSTOMER,
      type: "interactive",
      interactive: { type: "catalog_message", body: { text: "Angalia" }, action: { name: "catalog_message" } },
    };
    expect((await h!.send(catalog)).status).toBe(200);
  });

  it("sends catalog and multi-product templates outside the window with products the catalog holds (decision 146)", async () => {
    const { product } = await shop();
    await product("SKU-1", "150000");
    await product("SKU-2", "90000");
    const wabaId = h!.business.wabaId;
    h!.sandbox.createTemplateAtMeta(wabaId, {
      name: "duka_catalog",
      language: "sw",
      category: "MARKETING",
      components: [
        { type: "BODY", text: "Angalia bidhaa zetu" },
        { type: "BUTTONS", buttons: [{ type: "CATALOG", text: "View catalog" }] },
      ],
    });
    h!.sandbox.createTemplateAtMeta(wabaId, {
      name: "duka_mpm",
      language: "sw",
      category: "MARKETING",
      components: [
        { type: "HEADER", format: "TEXT", text: "Mpya" },
        { type: "BODY", text: "Bidhaa mpya" },
        { type: "BUTTONS", buttons: [{ type: "MPM", text: "View items" }] },
      ],
    });
    const send = (name: string, button?: object) =>
      h!.send({
        messaging_product: "whatsapp",
        to: CUSTOMER,
        type: "template",
        template: { name, language: { code: "sw" }, components: button ? [{ type: "button", index: "0", ...button }] : [] },
      });
    const action = (value: object) => ({ parameters: [{ type: "action", action: value }] });
    const sections = (...ids: string[][]) =>
      ids.map((list, i) => ({ title: `S${i}`, product_items: list.map((id) => ({ product_retailer_id: id })) }));
    expect((await send("duka_catalog", { sub_type: "CATALOG", ...action({ thumbnail_product_retailer_id: "SKU-1" }) })).status).toBe(200);
    expect((await send("duka_catalog")).status).toBe(200);
    const unknownThumb = await send("duka_catalog", { sub_type: "CATALOG", ...action({ thumbnail_product_retailer_id: "SKU-9" }) });
    expect(unknownThumb.json.error).toMatchObject({ code: 131009, error_data: { details: expect.stringMatching(/SKU-9/) } });
    const sent = await send("duka_mpm", {
      sub_type: "MPM",
      ...action({ thumbnail_product_retailer_id: "SKU-1", sections: sections(["SKU-1"], ["SKU-2"]) }),
    });
    expect(sent.status).toBe(200);
    const recorded = h!.sandbox.messages().find((d) => d.wamid === sent.json.messages[0].id);
    expect(JSON.stringify(recorded?.body)).toContain("SKU-2");
    expect((await send("duka_mpm")).json.error?.code).toBe(131008);
    const unknown = await send("duka_mpm", {
      sub_type: "MPM",
      ...action({ thumbnail_product_retailer_id: "SKU-1", sections: sections(["SKU-1", "SKU-7"]) }),
    });
    expect(unknown.json.error).toMatchObject({ code: 131009, error_data: { details: expect.stringMatching(/SKU-7/) } });
    const tooMany = action({ thumbnail_product_retailer_id: "SKU-1", sections: sections(...Array.from({ length: 11 }, () => ["SKU-1"])) });
    expect((await send("duka_mpm", { sub_type: "MPM", ...tooMany })).json.error?.code).toBe(131009);
    const thirtyOne = action({ thumbnail_product_retailer_id: "SKU-1", sections: sections(Array.from({ length: 31 }, () => "SKU-2")) });
    expect((await send("duka_mpm", { sub_type: "MPM", ...thirtyOne })).json.error?.code).toBe(131009);
    const noThumb = await send("duka_mpm", { sub_type: "MPM", ...action({ sections: sections(["SKU-1"]) }) });
    expect(noThumb.json.error?.code).toBe(131008);
  });

  it("lets the customer send a cart from the console, delivered as an order webhook", async () => {
    const { catalogId, product } = await shop();
    await product("SKU-1", "150000");
    await product("SKU-2", "32050");
    await h!.customerWrites(CUSTOMER);
    const sent = await h!.send(productList(catalogId, ["SKU-1", "SKU-2"]));
    const wamid = (sent.json.messages as { id: string }[])[0]!.id;
    const page = await fetch(`${h!.base}/console/shop`);
    expect(await page.text()).toContain("Quantity of Kikoi SKU-2");
    const posted = await fetch(`${h!.base}/console/shop/order`, {
      ...form({ wamid, "qty_SKU-1": "2", "qty_SKU-2": "1", note: "Leo tafadhali" }),
      redirect: "manual",
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toMatch(/notice=/);
    await h!.sandbox.flushWebhooks();
    const order = messageValues(h!.receiver.received)
      .flatMap((v) => v.messages ?? [])
      .find((m) => m.type === "order");
    expect(order?.order).toEqual({
      catalog_id: catalogId,
      text: "Leo tafadhali",
      product_items: [
        { product_retailer_id: "SKU-1", quantity: 2, item_price: 1500, currency: "KES" },
        { product_retailer_id: "SKU-2", quantity: 1, item_price: 320.5, currency: "KES" },
      ],
    });
    expect(order?.context).toEqual(expect.objectContaining({ id: wamid }));
  });
});
