import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { reasonWords } from "~/.server/domains/integrations/shopify/process";
import { queueShopifyImport, SHOPIFY_IMPORT_QUEUE } from "~/.server/domains/integrations/shopify/product-import";
import { shopifyWebhookHmac } from "@jumbe/sandbox/shopify/index";
import * as shopifyPage from "~/routes/app/integrations/shopify";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { shopifyHarnessForFile } from "../support/shopify-harness";
import { metaSandboxForFile } from "../support/meta-harness";
import { CLIENT_SECRET } from "@jumbe/sandbox/shopify/test-support";

// Issue 76, decision 142: the shop's products into Jumbe's catalogue (each variant a product, read a
// page at a time), kept in step by products/* webhooks; a product made in Jumbe with the same SKU is
// kept; a shop selling in another currency is refused in words; another organisation's shop touches nothing.

registerJobHandlers();
registerConnectors();

const meta = metaSandboxForFile({ appUrl: () => sh.appOrigin });
// After the Meta sandbox's: its environment, then the Shopify settings added to it.
const sh = shopifyHarnessForFile({
  shopPrefix: "bidhaa",
  setEnv: (vars) => setEnv(parseEnv({ NODE_ENV: "test", GRAPH_API_BASE_URL: meta.graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000", ...vars })),
});

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { ...account, cookie, organizationId: account.organization.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** Connects a new shop through the integrations page and Shopify's install page, as the owner would. */
const connect = (t: Tenant, shop?: string) => sh.connect(t.cookie, shop);

const askImport = (t: Tenant) =>
  run(shopifyPage.action, formRequest("/integrations/shopify", { intent: "import-products" }, { cookie: t.cookie }));
const page = (t: Tenant) => run(shopifyPage.loader, getRequest("/integrations/shopify", { cookie: t.cookie }));

/** The form queues the import (decision 147); the job does it. */
async function importProducts(t: Tenant) {
  const answered = await askImport(t);
  await drainJobs();
  return answered;
}

const productsOf = (organizationId: string) =>
  rawQuery<{
    retailer_id: string;
    name: string;
    price_cents: number;
    availability: string;
    image_url: string | null;
    shopify_shop: string | null;
    removed_at: unknown;
  }>(
    `select retailer_id, name, price_cents::int as price_cents, availability, image_url, shopify_shop, removed_at
     from products where organization_id = $1 order by retailer_id`,
    [organizationId],
  );
const live = async (organizationId: string) => (await productsOf(organizationId)).filter((p) => p.removed_at === null);

async function settle() {
  await sh.shopify.sandbox.flushWebhooks();
  await drainJobs();
}

describe("products from Shopify", () => {
  it("imports every page of the shop's products, keeps a hand-made SKU, and follows updates and deletions", async () => {
    const t = await tenant("Duka la Bidhaa");
    const shop = await connect(t);
    // A product the team made by hand with the SKU one of Shopify's variants has.
    await rawQuery(
      `insert into products (organization_id, retailer_id, name, price_cents, image_url) values ($1, 'KIK-3', 'Kikoi (ours)', 99900, 'https://example.com/k.jpg')`,
      [t.organizationId],
    );
    // 60 products: more than one page (50 a page).
    const specs = Array.from({ length: 60 }, (_, i) => ({ title: `Kikoi ${i + 1}`, sku: `KIK-${i + 1}`, price: 500 + i }));
    specs[0] = {
      title: "Kiondo",
      // @ts-expect-error -- a product with two variants, one without a SKU
      variants: [
        { title: "Small", sku: "KIO-S", price: "1250.50", inventory_quantity: 3 },
        { title: "Large", sku: "", price: "1800", inventory_quantity: 0 },
      ],
    };
    const added = sh.shopify.sandbox.addProducts(shop, specs).products;
    const answered = await importProducts(t);
    expect(answered.status).toBe(302);
    const products = await live(t.organizationId);
    expect(products).toHaveLength(61);
    const largeVariant = (added[0]!.variants as { id: number }[])[1]!.id;
    expect(products.find((p) => p.retailer_id === "KIO-S")).toMatchObject({
      name: "Kiondo - Small",
      price_cents: 125050,
      availability: "in stock",
      shopify_shop: shop,
    });
    expect(products.find((p) => p.retailer_id === `shopify-${largeVariant}`)).toMatchObject({
      name: "Kiondo - Large",
      availability: "out of stock",
    });
    expect(products.find((p) => p.retailer_id === "KIK-3")).toMatchObject({ name: "Kikoi (ours)", price_cents: 99900, shopify_shop: null });
    const batches = await rawQuery(`select 1 from jobs where queue = 'shop.sync-batch' and payload->>'organizationId' = $1`, [
      t.organizationId,
    ]);
    expect(batches.length).toBeGreaterThanOrEqual(1);

    // Kept in step: a price change, a product deleted; a hand-made SKU still untouched.
    const kikoi2 = added.find((p) => p.title === "Kikoi 2")!;
    const kikoi3 = added.find((p) => p.title === "Kikoi 3")!;
    sh.shopify.sandbox.changeProduct(Number(kikoi2.id), { price: 750, inventory_quantity: 0 });
    sh.shopify.sandbox.changeProduct(Number(kikoi3.id), { price: 1 });
    sh.shopify.sandbox.deleteProduct(Number(added.find((p) => p.title === "Kikoi 4")!.id));
    await settle();
    const after = await productsOf(t.organizationId);
    expect(after.find((p) => p.retailer_id === "KIK-2")).toMatchObject({ price_cents: 75000, availability: "out of stock" });
    expect(after.find((p) => p.retailer_id === "KIK-3")).toMatchObject({ name: "Kikoi (ours)", price_cents: 99900 });
    expect(after.find((p) => p.retailer_id === "KIK-4")!.removed_at).not.toBeNull();
    const reasons = await rawQuery<{ topic: string; status: string; reason: string }>(
      `select topic, status, reason from shopify_events where organization_id = $1 and topic like 'products/%' and topic <> 'products/create' order by topic desc, reason desc`,
      [t.organizationId],
    );
    expect(reasons).toEqual([
      { topic: "products/update", status: "done", reason: "products_synced" },
      { topic: "products/update", status: "done", reason: "product_sku_kept" },
      { topic: "products/delete", status: "done", reason: "products_synced" },
    ]);
    expect(reasonWords("product_sku_kept")).toBe("a product made in Jumbe has this SKU, so it was kept as it is");
  });

  it("refuses a shop that sells in another currency, in words, and importing nothing", async () => {
    const t = await tenant("Duka la Dola");
    const shop = await connect(t);
    sh.shopify.sandbox.setShopCurrency(shop, "USD");
    sh.shopify.sandbox.addProducts(shop, [{ title: "Hat", sku: "HAT-1", price: 20 }]);
    const queued = await importProducts(t);
    expect(queued.status).toBe(302);
    const shown = (await page(t)).data.productImport;
    expect(shown).toMatchObject({ state: "failed" });
    expect(shown.words).toBe("Your shop sells in USD, and Jumbe's products are priced in Kenyan shillings (KES): nothing was imported.");
    expect(await productsOf(t.organizationId)).toEqual([]);
  });

  it("keeps organisations apart: another shop's product under this shop's name changes nothing, and agents may not import", async () => {
    const a = await tenant("Duka A Bidhaa");
    const b = await tenant("Duka B Bidhaa");
    const shopA = await connect(a);
    const shopB = await connect(b);
    sh.shopify.sandbox.addProducts(shopA, [{ title: "Kiondo A", sku: "A-1", price: 100 }]);
    const [foreign] = sh.shopify.sandbox.addProducts(shopB, [{ title: "Mkeka B", sku: "B-1", price: 200 }]).products;
    expect((await importProducts(a)).status).toBe(302);
    await settle();
    // B's product body, validly signed, posted as shop A's products/update: A's shop does not have it.
    const raw = JSON.stringify(foreign);
    const response = await fetch(`${sh.appOrigin}/webhooks/shopify`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Shopify-Topic": "products/update",
        "X-Shopify-Hmac-Sha256": shopifyWebhookHmac(raw, CLIENT_SECRET),
        "X-Shopify-Shop-Domain": shopA,
        "X-Shopify-Event-Id": "evt-foreign-product",
      },
      body: raw,
    });
    expect(response.status).toBe(200);
    await settle();
    expect((await live(a.organizationId)).map((p) => p.retailer_id)).toEqual(["A-1"]);
    expect(await productsOf(b.organizationId)).toEqual([]);

    await rawQuery(`update users set org_role = 'agent' where id = $1`, [a.user.id]);
    const refused = await askImport(a);
    expect([refused.status, refused.location]).toEqual([302, "/unauthorized"]);
  });

  it("queues the import once however many clicks, shows it running and then its result, and a rerun after a crash makes nothing twice", async () => {
    const t = await tenant("Duka la Foleni");
    const shop = await connect(t);
    sh.shopify.sandbox.addProducts(shop, [
      { title: "Kikapu", sku: "KAP-1", price: 300 },
      { title: "Mkoba", sku: "MKO-1", price: 900 },
    ]);
    const actor = { organizationId: t.organizationId, userId: t.user.id };
    // Two clicks at once, then a third while it waits: one job.
    const clicks = await Promise.all([queueShopifyImport(actor), queueShopifyImport(actor)]);
    expect(clicks.filter(Boolean)).toHaveLength(1);
    expect((await askImport(t)).status).toBe(302);
    expect(await queueShopifyImport(actor)).toBe(false);
    const jobs = () =>
      rawQuery<{ id: string }>(`select id from jobs where queue = $1 and payload->>'organizationId' = $2`, [
        SHOPIFY_IMPORT_QUEUE,
        t.organizationId,
      ]);
    expect(await jobs()).toHaveLength(1);
    const waiting = (await page(t)).data.productImport;
    expect(waiting).toMatchObject({ state: "queued", words: null });
    expect(waiting.requestedAt).not.toBeNull();

    await drainJobs();
    const done = (await page(t)).data.productImport;
    expect(done).toMatchObject({ state: "done", words: "Products from Shopify: 2 new, 0 updated, 0 removed." });
    expect((await live(t.organizationId)).map((p) => p.retailer_id)).toEqual(["KAP-1", "MKO-1"]);

    // The process died after saving, before the job was marked finished: its lease runs out and it runs again.
    const [job] = await jobs();
    await rawQuery(`update jobs set finished_at = null, locked_until = now() - interval '1 second' where id = $1`, [job!.id]);
    await rawQuery(`update shopify_settings set import_state = 'running', import_result = null where organization_id = $1`, [
      t.organizationId,
    ]);
    expect((await page(t)).data.productImport).toMatchObject({ state: "running", words: null });
    await drainJobs();
    expect((await page(t)).data.productImport).toMatchObject({
      state: "done",
      words: "Products from Shopify: 0 new, 2 updated, 0 removed.",
    });
    expect((await productsOf(t.organizationId)).map((p) => p.retailer_id)).toEqual(["KAP-1", "MKO-1"]);

    // Done, another click queues a new one.
    expect(await queueShopifyImport(actor)).toBe(true);
    await drainJobs();
  });

  it("a shop connected before read_products and write_orders: the page says which feature needs which, and both forms are refused in words", async () => {
    const t = await tenant("Duka la Zamani");
    await connect(t);
    await rawQuery(`update integration_connections set scopes = array['read_orders','read_customers'] where organization_id = $1`, [
      t.organizationId,
    ]);
    const shown = await page(t);
    expect(shown.data.missingScopes).toEqual(["write_orders", "read_products"]);
    const imported = await askImport(t);
    expect(imported.status).toBe(409);
    expect(JSON.stringify(imported.data)).toContain("Connect Shopify again first: importing products needs the read_products permission");
    const asked = await run(
      shopifyPage.action,
      formRequest("/integrations/shopify", { intent: "ask-payment", askPayment: "on" }, { cookie: t.cookie }),
    );
    expect(asked.status).toBe(409);
    expect(JSON.stringify(asked.data)).toContain("asking for M-Pesa needs the write_orders permission");
    const off = await run(shopifyPage.action, formRequest("/integrations/shopify", { intent: "ask-payment" }, { cookie: t.cookie }));
    expect(off.status).toBe(302);
    expect(
      await rawQuery(`select 1 from jobs where queue = $1 and payload->>'organizationId' = $2`, [SHOPIFY_IMPORT_QUEUE, t.organizationId]),
    ).toEqual([]);

    // Connected again (the connect flow asks for every scope): nothing missing.
    await rawQuery(
      `update integration_connections set scopes = array['read_orders','read_customers','write_orders','read_products'] where organization_id = $1`,
      [t.organizationId],
    );
    expect((await page(t)).data.missingScopes).toEqual([]);
  });
});
