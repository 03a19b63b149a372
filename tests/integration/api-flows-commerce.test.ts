import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createProduct } from "~/.server/domains/shop";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";
import { metaSandboxForFile } from "../support/meta-harness";
import { until } from "../support/automation-harness";
import { shopProduct } from "../support/shop-kit";

// Issue 76 (decisions 139 and 143) through the public flows API: a flow's `payment` and `products`
// steps are taken and answered as the builder saves them, checked by the same rules (another
// organisation's product refused at its field with the builder's words, nothing stored).

let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  apiServer = await startApiV1Server();
});
afterAll(async () => {
  await apiServer.close();
});
const meta = metaSandboxForFile({ appUrl: () => apiServer.base });
const FLOWS = "/api/v1/automations/flows";

/** An organisation with an API key, a connected number and one product in its Meta catalog. */
async function shop(name: string, sku: string) {
  const t = await tenantWithApiKey(name);
  await meta.graph.connect(t.organizationId, name);
  const product = await createProduct({ organizationId: t.organizationId, userId: t.userId }, shopProduct(sku, `Kikoi ${sku}`));
  await until(
    () => rawQuery<{ state: string }>(`select sync_state as state from products where id = $1`, [product.id]),
    (rows) => rows[0]!.state === "synced",
  );
  return { ...t, product };
}

const flowCount = async (organizationId: string) =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from flows where organization_id = $1`, [organizationId]))[0]!.n;

describe("the flows API's commerce steps", () => {
  it("takes and answers a payment step and a products step; another organisation's product is refused at its field", async () => {
    const t = await shop("Duka la Flows", "KIKOI-7");
    const other = await shop("Duka la Jirani", "KIKOI-8");
    const steps = [
      {
        id: "show",
        type: "products",
        kind: "product_list",
        productIds: [t.product.id],
        header: "Bidhaa",
        text: "Chagua, {{contact.name}}",
      },
      {
        id: "pay",
        type: "payment",
        amount: "1500",
        description: "Kikoi",
        reference: "ORD7",
        expiresInMinutes: 60,
        paid: "thanks",
        else: "end",
      },
      { id: "thanks", type: "message", text: "Asante! {{payment_receipt}}" },
    ];
    const created = await apiServer.call(t.key, "POST", FLOWS, { name: "Nunua", steps });
    expect(created.status).toBe(201);
    expect(created.body.steps).toEqual([
      expect.objectContaining(steps[0]),
      expect.objectContaining({ id: "pay", type: "payment", amount: "1500", reference: "ORD7", paid: "thanks", else: "end" }),
      expect.objectContaining(steps[2]),
    ]);
    const read = await apiServer.call(t.key, "GET", `${FLOWS}/${created.body.id}`);
    expect(read.body.steps).toEqual(created.body.steps);

    const before = await flowCount(t.organizationId);
    const foreign = await apiServer.call(t.key, "POST", FLOWS, {
      name: "Ya jirani",
      steps: [{ ...steps[0], productIds: [other.product.id] }],
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ code: "invalid_automation", field: "steps[0].productIds" });
    const badPayment = await apiServer.call(t.key, "POST", FLOWS, { name: "Bila kiasi", steps: [{ ...steps[1], amount: "" }] });
    expect(badPayment).toMatchObject({ status: 422, body: { code: "invalid_automation" } });
    expect(await flowCount(t.organizationId)).toBe(before);
    // Another organisation does not read it.
    expect((await apiServer.call(other.key, "GET", `${FLOWS}/${created.body.id}`)).status).toBe(404);
  });
});
