import { afterEach, describe, expect, it } from "vitest";
import { startSending, type SendingHarness } from "./test-support";

// items_batch and check_batch_request_status as Meta answers them: a malformed call refused whole,
// a bad item refused alone (the others applied), the outcome read by handle.

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const json = (body: unknown) => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

async function catalog() {
  h = await startSending();
  const made = await h.graph(`${h.business.businessId}/owned_product_catalogs`, { ...json({ name: "Duka" }), token: h.token });
  return made.json.id as string;
}

const item = (id: string, extra: Record<string, unknown> = {}) => ({
  method: "UPDATE",
  data: { id, title: `Kikoi ${id}`, price: "1500.00 KES", availability: "in stock", image_link: "https://example.com/k.jpg", ...extra },
});

describe("the catalog batch", () => {
  it("refuses a call without item_type or with requests that are not a list", async () => {
    const id = await catalog();
    const noType = await h!.graph(`${id}/items_batch`, { ...json({ requests: [item("A")] }), token: h!.token });
    expect(noType.json.error?.message).toMatch(/item_type/);
    const notList = await h!.graph(`${id}/items_batch`, { ...json({ item_type: "PRODUCT_ITEM", requests: "nope" }), token: h!.token });
    expect(notList.json.error?.message).toMatch(/requests/);
    const stranger = await h!.graph(`${id}/items_batch`, {
      ...json({ item_type: "PRODUCT_ITEM", requests: [item("A")] }),
      token: "not-a-token",
    });
    expect(stranger.status).toBeGreaterThanOrEqual(400);
  });

  it("applies the good items, reports the bad ones per item by handle, and deletes by retailer id", async () => {
    const id = await catalog();
    const sent = await h!.graph(`${id}/items_batch`, {
      ...json({
        item_type: "PRODUCT_ITEM",
        allow_upsert: true,
        requests: [item("A"), item("B", { price: "15 kes" }), { method: "DELETE", data: { id: "NONE" } }],
      }),
      token: h!.token,
    });
    expect(sent.status).toBe(200);
    const handle = (sent.json.handles as string[])[0]!;
    const status = await h!.graph(`${id}/check_batch_request_status?handle=${encodeURIComponent(handle)}`, { token: h!.token });
    expect(status.json.data[0]).toMatchObject({ status: "finished", errors_total_count: 2 });
    const errors = status.json.data[0]!.errors as { id: string }[];
    expect(errors.map((e) => e.id)).toEqual(["B", "NONE"]);
    const listed = await h!.graph(`${id}/products`, { token: h!.token });
    expect(listed.json.data.map((p) => [p.retailer_id, p.price])).toEqual([["A", "1500.00 KES"]]);
    await h!.graph(`${id}/items_batch`, {
      ...json({ item_type: "PRODUCT_ITEM", requests: [{ method: "DELETE", data: { id: "A" } }] }),
      token: h!.token,
    });
    expect((await h!.graph(`${id}/products`, { token: h!.token })).json.data).toEqual([]);
    const unknown = await h!.graph(`${id}/check_batch_request_status?handle=nope`, { token: h!.token });
    expect(unknown.json.error?.message).toMatch(/handle/);
  });
});
