import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, env, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { action as importAction } from "~/routes/app/shop/import";
import { action as productsAction, loader as productsLoader } from "~/routes/app/shop/products";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, callRoute, formRequest, getRequest } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";

// Many products to Meta in one call (decision 141): a CSV import and "sync now" are one items_batch
// whose outcome, read by handle, marks each product synced or refused with Meta's words; tenants
// stay apart.

let graph: Awaited<ReturnType<typeof startGraphSandbox>>;

beforeAll(async () => {
  registerJobHandlers();
  graph = await startGraphSandbox({});
});

afterAll(async () => {
  await graph.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: APP, GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000" }));
  graph.sandbox.reset();
  graph.sandbox.clearFaults();
});

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const connected = await graph.connect(user.organization.id, name);
  const cookie = await signedInCookie(user.email, user.password);
  return { ...user, ...connected, organizationId: user.organization.id, cookie };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const importCsv = (t: Tenant, text: string) => {
  const form = new FormData();
  form.set("file", new File([text], "products.csv", { type: "text/csv" }));
  return callRoute(
    importAction,
    new Request(`${APP}/shop/products/import`, { method: "POST", body: form, headers: { cookie: t.cookie, origin: APP } }),
  );
};

const csvOf = (count: number, prefix = "SKU") =>
  [
    "sku,name,price,image_url,availability",
    ...Array.from(
      { length: count },
      (_, i) => `${prefix}-${i + 1},Bidhaa ${i + 1},${100 + i},https://duka.example.co.ke/${i + 1}.jpg,in stock`,
    ),
  ].join("\n");

const stateOf = (organizationId: string) =>
  rawQuery<{ retailer_id: string; sync_state: string; sync_error: string | null; meta_product_id: string | null }>(
    `select retailer_id, sync_state, sync_error, meta_product_id from products where organization_id = $1 order by retailer_id`,
    [organizationId],
  );

const catalogCalls = (path: RegExp) => graph.sandbox.calls().filter((c) => path.test(c.path));

async function metaProducts(t: Tenant) {
  const [row] = await rawQuery<{ catalog_id: string; token: string }>(
    `select s.catalog_id, a.access_token_encrypted as token from shop_catalogs s join whatsapp_accounts a on a.id = s.account_id where s.organization_id = $1`,
    [t.organizationId],
  );
  const answer = await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${row!.catalog_id}/products`, {
    headers: { Authorization: `Bearer ${decryptSecret(row!.token)}` },
  });
  return {
    catalogId: row!.catalog_id,
    token: decryptSecret(row!.token),
    items: ((await answer.json()) as { data: { id: string; retailer_id: string; price: string }[] }).data,
  };
}

describe("items_batch", () => {
  it("sends a CSV of 50 products as one items_batch and marks each from Meta's answer; a second import updates in one more", async () => {
    const t = await tenant("Duka la Jumla");
    const done = await importCsv(t, csvOf(50));
    expect(done.data).toMatchObject({ outcome: { created: 50, refused: 0 } });
    await drainJobs();
    expect(catalogCalls(/\/items_batch/)).toHaveLength(1);
    expect(catalogCalls(/\/check_batch_request_status\?handle=/).length).toBeGreaterThanOrEqual(1);
    // Not one /products call per product.
    expect(catalogCalls(/\/products$/).filter((c) => c.method === "POST")).toEqual([]);
    const rows = await stateOf(t.organizationId);
    expect(rows).toHaveLength(50);
    expect(rows.every((r) => r.sync_state === "synced" && r.meta_product_id)).toBe(true);
    const { items } = await metaProducts(t);
    expect(items).toHaveLength(50);
    expect(items.find((i) => i.retailer_id === "SKU-1")).toMatchObject({ price: "100.00 KES" });

    const again = await importCsv(t, csvOf(50).replace("SKU-1,Bidhaa 1,100", "SKU-1,Bidhaa 1,150"));
    expect(again.data).toMatchObject({ outcome: { created: 0, updated: 50 } });
    await drainJobs();
    expect(catalogCalls(/\/items_batch/)).toHaveLength(2);
    expect((await metaProducts(t)).items.find((i) => i.retailer_id === "SKU-1")).toMatchObject({ price: "150.00 KES" });
  });

  it("lands Meta's refusal of one item on that product only, and a refused call on every product it carried", async () => {
    const t = await tenant("Duka la Makosa");
    await importCsv(t, csvOf(3, "ITEM"));
    // A row Meta refuses by itself: a currency that is not ISO 4217 (a row from before the KES rule).
    await rawQuery(`update products set currency = 'Ksh' where organization_id = $1 and retailer_id = 'ITEM-2'`, [t.organizationId]);
    await drainJobs();
    const rows = await stateOf(t.organizationId);
    expect(rows.map((r) => [r.retailer_id, r.sync_state])).toEqual([
      ["ITEM-1", "synced"],
      ["ITEM-2", "failed"],
      ["ITEM-3", "synced"],
    ]);
    expect(rows[1]!.sync_error).toMatch(/ISO 4217/);
    const page = await callRoute(productsLoader, getRequest("/shop/products", { cookie: t.cookie }));
    expect(page.data.products.find((p) => p.retailerId === "ITEM-2")).toMatchObject({ syncState: "failed" });

    graph.sandbox.injectFault({
      step: "catalog.batch",
      error: { status: 400, code: 100, message: "(#100) Param requests must be an array" },
    });
    await importCsv(t, csvOf(1, "LATER"));
    await drainJobs();
    const later = (await stateOf(t.organizationId)).find((r) => r.retailer_id === "LATER-1");
    expect(later).toMatchObject({ sync_state: "failed", sync_error: "(#100) Param requests must be an array" });
  });

  it("'sync now' puts the catalog back in one batch: what it lost sent again, what Jumbe does not hold deleted; another tenant untouched", async () => {
    const t = await tenant("Duka la Sawa");
    const other = await tenant("Duka Jirani");
    await importCsv(t, csvOf(3, "MINE"));
    await importCsv(other, csvOf(2, "THEIRS"));
    await drainJobs();
    const { catalogId, token, items } = await metaProducts(t);
    // Changed in Commerce Manager: one item deleted, a stranger added.
    const gone = items.find((i) => i.retailer_id === "MINE-2")!;
    await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${gone.id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${token}` },
    });
    await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${catalogId}/products`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        retailer_id: "STRANGER",
        name: "Stranger",
        price: 100,
        currency: "KES",
        image_url: "https://x.example/s.jpg",
      }),
    });
    const before = catalogCalls(/\/items_batch/).length;
    const sync = await callRoute(productsAction, formRequest("/shop/products", { intent: "sync" }, { cookie: t.cookie }));
    expect(sync.status).toBe(302);
    await drainJobs();
    expect(catalogCalls(/\/items_batch/)).toHaveLength(before + 1);
    expect((await metaProducts(t)).items.map((i) => i.retailer_id).sort()).toEqual(["MINE-1", "MINE-2", "MINE-3"]);
    expect((await metaProducts(other)).items.map((i) => i.retailer_id).sort()).toEqual(["THEIRS-1", "THEIRS-2"]);
    expect((await stateOf(t.organizationId)).every((r) => r.sync_state === "synced")).toBe(true);
  });
});
