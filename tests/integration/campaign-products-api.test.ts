import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createProduct } from "~/.server/domains/shop";
import { listTemplates } from "~/.server/domains/templates/queries";
import { reviewCampaign } from "~/.server/domains/campaigns/campaign-form";
import * as keyApi from "~/routes/api/developer.api-key";
import { loader as campaignLoader } from "~/routes/app/messaging/campaigns/campaign";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, routeArgs, run } from "../support/http";
import { startApiV1Server } from "../support/api-v1-server";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedProductTemplate, shopProduct } from "../support/shop-kit";
import { until } from "../support/automation-harness";

// Campaign products through the public API and on the pages (issue 76, decision 146): POST
// /api/v1/campaigns takes a catalog or multi-product template's products with the campaign form's
// checks and words, GET answers them, another tenant's or an unknown product is a clear 422 with
// nothing stored, and the Review step, the campaign's page and the template list show them.

let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  apiServer = await startApiV1Server();
});
afterAll(async () => {
  await apiServer.close();
});
const meta = metaSandboxForFile({ appUrl: () => apiServer.base });

const product = shopProduct;

/** An organisation with an API key, a connected number, three products in its catalog and an approved MPM template. */
async function shop(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  const actor = { organizationId: account.organization.id, userId: account.user.id };
  await meta.graph.connect(actor.organizationId, name);
  const kikoi = await createProduct(actor, product("KIKOI-1", "Kikoi ya pwani", 150_000));
  const sandal = await createProduct(actor, product("SANDAL-9", "Sandals", 89_950));
  const kanga = await createProduct(actor, product("KANGA-3", "Kanga", 60_000));
  await until(
    () =>
      rawQuery<{ n: number }>(`select count(*)::int as n from products where organization_id = $1 and sync_state = 'synced'`, [
        actor.organizationId,
      ]),
    (rows) => rows[0]!.n === 3,
  );
  await approvedProductTemplate(meta, actor);
  return { ...actor, cookie, key: read.data.key as string, kikoi, sandal, kanga };
}

async function call(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${apiServer.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const campaignBody = (products: unknown) => ({
  name: "Coast week",
  template: "new_arrivals",
  audience: { phones: ["+254712000318"] },
  parameters: [{ value: "rafiki" }],
  products,
  draft: true,
});
const campaignCount = async (organizationId: string) =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from campaigns where organization_id = $1`, [organizationId]))[0]!.n;

describe("a multi-product campaign through the public API", () => {
  // One test: each test starts on a fresh database, and two shops with approved templates take a while.
  it("is made with its products and read back; a foreign, unknown or malformed product is a 422; tenants are kept apart", async () => {
    const t = await shop("Pwani Fashions");
    const stranger = await shop("Another Duka");
    const products = {
      thumbnail: t.kikoi.id,
      sections: [
        { title: "Nguo", productIds: [t.kikoi.id, t.kanga.id] },
        { title: "Viatu", productIds: [t.sandal.id] },
      ],
    };
    const made = await call(t.key, "POST", "/api/v1/campaigns", campaignBody(products));
    expect(made.status).toBe(201);
    expect(made.body.parameters.products).toEqual(products);
    const read = await call(t.key, "GET", `/api/v1/campaigns/${made.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.parameters.products).toEqual(products);

    const page = await campaignLoader(
      routeArgs(getRequest(`/messaging/campaigns/${made.body.id}`, { cookie: t.cookie }), { id: made.body.id }),
    );
    expect(page.templateValues.products).toEqual([
      { id: t.kikoi.id, name: "Kikoi ya pwani", retailerId: "KIKOI-1", priceCents: 150_000, section: "Nguo", thumbnail: true },
      { id: t.kanga.id, name: "Kanga", retailerId: "KANGA-3", priceCents: 60_000, section: "Nguo", thumbnail: false },
      { id: t.sandal.id, name: "Sandals", retailerId: "SANDAL-9", priceCents: 89_950, section: "Viatu", thumbnail: false },
    ]);

    const review = await reviewCampaign(
      t.organizationId,
      {
        name: "Coast week",
        template: { name: "new_arrivals" },
        parameters: {
          body: [{ value: "rafiki" }],
          products: { thumbnail: t.sandal.id, sections: [{ title: "", productIds: [t.kikoi.id] }] },
        },
        audience: { phones: ["+254712000318"] },
      },
      { segmentName: () => null, approvalThreshold: null },
    );
    expect(review.products.map((p) => [p.retailerId, p.priceCents, p.section, p.thumbnail])).toEqual([
      ["SANDAL-9", 89_950, null, true],
      ["KIKOI-1", 150_000, null, false],
    ]);

    // Refused with the campaign form's words, storing nothing.
    const before = await campaignCount(t.organizationId);
    const cases = [
      { thumbnail: stranger.kikoi.id, sections: [{ title: "", productIds: [t.kikoi.id] }] },
      { thumbnail: t.kikoi.id, sections: [{ title: "", productIds: [stranger.sandal.id] }] },
      { thumbnail: t.kikoi.id, sections: [{ title: "", productIds: ["00000000-0000-4000-8000-000000000000"] }] },
      { thumbnail: "KIKOI-1", sections: [{ title: "", productIds: [t.kikoi.id] }] },
    ];
    for (const products of cases) {
      const refused = await call(t.key, "POST", "/api/v1/campaigns", campaignBody(products));
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        code: "invalid_parameters",
        message: "Choose products from your shop that are in your WhatsApp catalog.",
      });
    }
    // The form's other rules, in its words.
    const noThumbnail = await call(t.key, "POST", "/api/v1/campaigns", campaignBody({ thumbnail: "", sections: [] }));
    expect(noThumbnail).toMatchObject({ status: 422, body: { code: "invalid_parameters", message: expect.stringMatching(/thumbnail/) } });
    const untitled = await call(
      t.key,
      "POST",
      "/api/v1/campaigns",
      campaignBody({ thumbnail: t.kikoi.id, sections: [{ productIds: [t.kikoi.id] }, { productIds: [t.kanga.id] }] }),
    );
    expect(untitled).toMatchObject({ status: 422, body: { message: "With several sections, give each a title." } });
    const withoutProducts = await call(t.key, "POST", "/api/v1/campaigns", { ...campaignBody(undefined) });
    expect(withoutProducts).toMatchObject({ status: 422, body: { code: "invalid_parameters" } });
    const badShape = await call(t.key, "POST", "/api/v1/campaigns", campaignBody({ thumbnail: t.kikoi.id, extra: 1 }));
    expect(badShape.status).toBe(400);
    expect(await campaignCount(t.organizationId)).toBe(before);

    // Each tenant's campaign to itself; the template list labels the product template.
    const second = await call(
      t.key,
      "POST",
      "/api/v1/campaigns",
      campaignBody({ thumbnail: t.kikoi.id, sections: [{ title: "", productIds: [t.kanga.id] }] }),
    );
    expect(second.status).toBe(201);
    expect((await call(stranger.key, "GET", `/api/v1/campaigns/${second.body.id}`)).status).toBe(404);
    const list = await call(stranger.key, "GET", "/api/v1/campaigns");
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(second.body.id);
    const templates = await listTemplates(t.organizationId, {});
    expect(templates.rows.find((row) => row.name === "new_arrivals")?.productButton).toBe("MPM");
  });
});
