// Issue 76 (decisions 142 and 147): what the Shopify import job costs for a shop of 2,000 products,
// beside the shop's own CSV import of the same products in the same run. A benchmark, never a test:
// figures to compare between commits (bench/results.md).
//
//   bash scripts/with-postgres.sh node --import tsx bench/shopify-import.ts          (PostgreSQL, as production runs)
//   node --import tsx bench/shopify-import.ts [--products 2000] [--rounds 3]          (PGlite in memory)
//
// The Shopify sandbox (sandbox/shopify) on a loopback port, Jumbe's Shopify client pointed at it. Each
// round makes two new organisations:
//   shopify   one connected to a new sandbox shop (installed through the sandbox's grant page, the
//             token stored as Jumbe's connect stores it) holding `--products` products (one variant,
//             a SKU and a KES price each); the import job's work (runShopifyImports: the state on
//             shopify_settings, every page of 50 read over GraphQL, the products saved by retailer id
//             in one transaction, the catalog batch queued), timed from the job's start to its end;
//   rerun     the same job again on the same shop: every product already there (a crash's rerun);
//   baseline  the other organisation imports the same products through the shop's own CSV path
//             (importProducts, the products page's import form: files of at most 500 rows, so
//             four files for 2,000), timed over the files.
// After each round the shop's organisation must hold `--products` products, each retailer id once,
// all from the shop, and the rerun must have created none: a failure stops the bench.
// Jumbe's own time in process; the sandbox shares the process and the machine (loopback HTTP).
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase, rawQuery } from "../app/.server/infrastructure/db/client";
import { saveConnection } from "../app/.server/domains/integrations/connections";
import { runShopifyImports, type ImportJobPayload } from "../app/.server/domains/integrations/shopify/product-import";
import { importProducts, PRODUCT_IMPORT_FIELD, PRODUCT_IMPORT_MAX_ROWS } from "../app/.server/domains/shop";
import { multipartBoundary } from "../app/.server/infrastructure/http/multipart";
import type { Job } from "../app/.server/infrastructure/jobs/queue";
import { CLIENT_ID, CLIENT_SECRET, startShopify } from "../sandbox/shopify/test-support";
import { connectedBusiness } from "./lib/connected-business";

const { values: options } = parseArgs({
  options: { products: { type: "string", default: "2000" }, rounds: { type: "string", default: "3" } },
});
const PRODUCTS = Number(options.products);
const ROUNDS = Number(options.rounds);
/** The sandbox takes at most this many products a call. */
const SEED_BATCH = 250;
const SCOPES = "read_orders,read_customers,read_products,write_orders";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const spec = (i: number) => ({ title: `Kitenge ${String(i).padStart(5, "0")}`, sku: `KIT-${String(i).padStart(5, "0")}`, price: 450 + i });

/** The same products as the shop's CSV files, PRODUCT_IMPORT_MAX_ROWS rows each. */
function csvFiles(count: number) {
  const rows = Array.from({ length: count }, (_, i) => {
    const p = spec(i + 1);
    return `${p.sku},${p.title},,${p.price},https://duka.example.co.ke/${p.sku.toLowerCase()}.jpg,in stock`;
  });
  const files: string[] = [];
  for (let i = 0; i < rows.length; i += PRODUCT_IMPORT_MAX_ROWS)
    files.push(["sku,name,description,price,image_url,availability", ...rows.slice(i, i + PRODUCT_IMPORT_MAX_ROWS)].join("\n"));
  return files;
}

/** One CSV file posted as the products page's import form posts it (multipart/form-data). */
function upload(csv: string) {
  const form = new FormData();
  form.set(PRODUCT_IMPORT_FIELD, new Blob([csv], { type: "text/csv" }), "products.csv");
  const request = new Request("http://127.0.0.1:9/shop/products/import", { method: "POST", body: form });
  return { body: request.body, boundary: multipartBoundary(request.headers.get("content-type")) };
}

async function shopProducts(organizationId: string) {
  const [row] = await rawQuery<{ n: number; skus: number; shops: number }>(
    `select count(*)::int as n, count(distinct retailer_id)::int as skus, count(*) filter (where shopify_shop is not null)::int as shops
     from products where organization_id = $1 and removed_at is null`,
    [organizationId],
  );
  return row!;
}

async function main() {
  const databaseUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  const shopify = await startShopify({ webhookAttempts: 1 });
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: "http://127.0.0.1:9",
      SHOPIFY_CLIENT_ID: CLIENT_ID,
      SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
      SHOPIFY_AUTH_URL: `${shopify.base}/shops/{shop}`,
      SHOPIFY_API_URL: `${shopify.base}/shops/{shop}`,
    }),
  );
  await openDatabase(databaseUrl ? { databaseUrl, poolSize: 4 } : { dataDir: "memory://" });
  const samples = { shopify: [] as number[], rerun: [] as number[], baseline: [] as number[] };

  for (let round = 1; round <= ROUNDS; round++) {
    // The shop: installed at the sandbox, its products added, the token stored as Jumbe's connect stores it.
    const shop = `bench-import-${process.pid}-${round}.myshopify.com`;
    const token = await shopify.connect(shop, SCOPES);
    for (let i = 0; i < PRODUCTS; i += SEED_BATCH)
      shopify.sandbox.addProducts(
        shop,
        Array.from({ length: Math.min(SEED_BATCH, PRODUCTS - i) }, (_, j) => spec(i + j + 1)),
      );
    const ids = (n: number) => ({ wabaId: `9300${round}${n}`, phoneNumberId: `9310${round}${n}`, digits: `25470093${round}${n}00` });
    const withShop = await connectedBusiness(`Bench Kitenge ${round}`, ids(1));
    await saveConnection(
      withShop,
      "shopify",
      { accessToken: token, refreshToken: null, expiresAt: null, scopes: SCOPES.split(",") },
      { label: shop, externalId: shop },
      { shop },
    );
    const job = (attempts: number): Job<ImportJobPayload> => ({
      id: round * 10 + attempts,
      queue: "shopify.import-products",
      payload: { organizationId: withShop.organizationId, userId: withShop.userId },
      attempts,
    });

    let t = performance.now();
    await runShopifyImports([job(1)]);
    samples.shopify.push(performance.now() - t);
    const first = await shopProducts(withShop.organizationId);
    t = performance.now();
    await runShopifyImports([job(2)]);
    samples.rerun.push(performance.now() - t);
    const again = await shopProducts(withShop.organizationId);
    const [state] = await rawQuery<{ import_state: string; import_result: { ok: boolean; created?: number; updated?: number } }>(
      `select import_state, import_result from shopify_settings where organization_id = $1`,
      [withShop.organizationId],
    );
    if (first.n !== PRODUCTS || first.skus !== PRODUCTS || first.shops !== PRODUCTS)
      throw new Error(`round ${round}: the import left ${JSON.stringify(first)} for ${PRODUCTS} products`);
    if (again.n !== PRODUCTS || again.skus !== PRODUCTS || state?.import_state !== "done" || state.import_result.created !== 0)
      throw new Error(`round ${round}: the rerun left ${JSON.stringify(again)}, ${JSON.stringify(state)}`);

    // The baseline: the same products through the shop's CSV import, in another organisation.
    const byCsv = await connectedBusiness(`Bench CSV ${round}`, ids(2));
    t = performance.now();
    for (const csv of csvFiles(PRODUCTS)) {
      const outcome = await importProducts({ organizationId: byCsv.organizationId, userId: byCsv.userId }, upload(csv));
      if (outcome.refused) throw new Error(`round ${round}: the CSV import refused ${JSON.stringify(outcome.errors)}`);
    }
    samples.baseline.push(performance.now() - t);
    const csvCount = await shopProducts(byCsv.organizationId);
    if (csvCount.n !== PRODUCTS) throw new Error(`round ${round}: the CSV import left ${csvCount.n} products`);
  }

  const base = median(samples.baseline);
  console.log(
    `the Shopify import job: ${PRODUCTS} products, ${ROUNDS} rounds, ${databaseUrl ? "PostgreSQL" : "PGlite"}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const line = (name: string, values: number[]) =>
    console.log(
      `  ${name.padEnd(44)} median ${median(values).toFixed(0).padStart(6)} ms  (${values.map((v) => v.toFixed(0)).join(", ")})   ${(median(values) / base).toFixed(2)}x the baseline`,
    );
  line("shopify: the import job (pages read and saved)", samples.shopify);
  line("rerun: the job again, nothing new", samples.rerun);
  line(`baseline: the same by CSV (${Math.ceil(PRODUCTS / PRODUCT_IMPORT_MAX_ROWS)} files)`, samples.baseline);
  console.log(`  checked: ${PRODUCTS} products once each after the import and after the rerun (created 0), in every round`);
  await closeDatabase();
  await shopify.close();
}

await main();
