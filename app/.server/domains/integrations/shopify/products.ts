import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { shopifyClient, type ShopifyClient, type ShopifyProduct } from "../../../infrastructure/clients/shopify";
import { recordActivity } from "../../activity";
import { saveSourcedProducts, type SourcedOutcome, type SourcedProduct } from "../../shop";
import { englishOf, words } from "../../../infrastructure/words/said";
import { PRODUCT_DESCRIPTION_MAX, PRODUCT_NAME_MAX, PRODUCT_PRICE_MAX_CENTS, PRODUCT_SKU, priceToCents } from "~/lib/schemas/shop";
import { connectedShop } from "./mappings";
import { shopTokenOf } from "./confirm";
import { withRetry } from "./provider";
import { m } from "~/paraglide/messages";

/**
 * Products from Shopify (issue 76, decision 142): "Import products from Shopify" reads the shop's
 * products through the GraphQL Admin API a page at a time (cursor paging, read_products), each
 * variant one Jumbe product (retailer id: the variant's SKU, else `shopify-<variant id>`; the price in
 * KES cents; in stock while the product is active and the variant for sale; the variant's image, else
 * the product's), saved through the shop domain (a product made in Jumbe with the same retailer id is
 * kept, decision 142) and sent to the catalog in one batch. From then on products/create, update and
 * delete keep them in step: the job reads each product again from the shop (the webhook's body is not
 * trusted, decision 098), so another shop's product posted under this shop's name finds nothing.
 */

let client: ShopifyClient | null = null;
const shopify = () => (client ??= shopifyClient());

/** Products a page (each with up to 100 variants). */
const PAGE = 50;
/** At most this many pages an import (PRODUCTS_MAX products in all at most). */
const PAGES_MAX = 60;

const numericId = (gid: string) => gid.replace(/^gid:\/\/shopify\/\w+\//, "");

/** Each of the product's variants as a Jumbe product; those that cannot be one (no price, no image) counted apart. */
export function productsOfShopify(shop: string, product: ShopifyProduct): { items: SourcedProduct[]; refused: number } {
  const items: SourcedProduct[] = [];
  let refused = 0;
  for (const variant of product.variants) {
    const cents = priceToCents(variant.price);
    const image = variant.imageUrl ?? product.imageUrl;
    if (cents === null || cents <= 0 || cents > PRODUCT_PRICE_MAX_CENTS || !image?.startsWith("https://")) {
      refused++;
      continue;
    }
    const sku = variant.sku.trim();
    const named = variant.title && variant.title !== "Default Title" ? `${product.title} - ${variant.title}` : product.title;
    items.push({
      retailerId: PRODUCT_SKU.test(sku) ? sku : `shopify-${numericId(variant.id)}`,
      name: named.slice(0, PRODUCT_NAME_MAX),
      description: product.description.slice(0, PRODUCT_DESCRIPTION_MAX),
      priceCents: cents,
      imageUrl: image,
      availability: product.status === "ACTIVE" && variant.availableForSale ? "in stock" : "out of stock",
      shopifyShop: shop,
      shopifyProductId: numericId(product.id),
      shopifyVariantId: numericId(variant.id),
    });
  }
  return { items, refused };
}

export interface ShopifyImportOutcome extends SourcedOutcome {
  refused: number;
}

/** What an import came to: saved (counts, SKUs kept), or nothing done and why (read in the reader's words by the page). */
export type ShopifyImportResult =
  | ({ ok: true } & ShopifyImportOutcome)
  | { ok: false; code: "currency_not_kes"; currency: string }
  | { ok: false; code: "not_connected" | "scope_missing" | "shopify_unavailable" };

/**
 * Reads every product of the connected shop and saves them (the import job's work, decision 147).
 * Saving is one transaction keyed by retailer id, so a rerun after a crash updates what the first run
 * saved and makes nothing twice. A shop selling in another currency than KES imports nothing.
 */
export async function importShopifyProducts(actor: {
  organizationId: string;
  userId: string;
  meta?: RequestMeta;
}): Promise<ShopifyImportResult> {
  const shop = await connectedShop(actor.organizationId);
  const token = await shopTokenOf(actor.organizationId, shop);
  if (!token) return { ok: false, code: "not_connected" };
  const items: SourcedProduct[] = [];
  const seen: string[] = [];
  let refused = 0;
  let after: string | null = null;
  for (let page = 0; page < PAGES_MAX; page++) {
    const answer = await withRetry(() => shopify().productsPage(shop, token, PAGE, after));
    if (answer.currency !== "KES") return { ok: false, code: "currency_not_kes", currency: answer.currency || "?" };
    for (const product of answer.products) {
      const made = productsOfShopify(shop, product);
      items.push(...made.items);
      refused += made.refused;
      seen.push(numericId(product.id));
    }
    after = answer.next;
    if (!after) break;
  }
  const outcome = await saveSourcedProducts(actor.organizationId, shop, items, { productIds: [], allBut: seen });
  await db().execute(sql`
    insert into shopify_settings (organization_id, products_imported_at) values (${actor.organizationId}, now())
    on conflict (organization_id) do update set products_imported_at = coalesce(shopify_settings.products_imported_at, now()), updated_at = now()`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: refused || outcome.kept.length ? "warning" : "success",
    action: "Products imported",
    details: englishOf(
      words("app_activity_detail_products_imported", {
        created: outcome.created,
        updated: outcome.updated,
        refused: refused + outcome.kept.length,
      }),
    ),
    meta: actor.meta,
  });
  return { ok: true, ...outcome, refused };
}

/** An import's result in the reader's words: what was imported, kept and left out, or why nothing was. */
export function importResultWords(result: ShopifyImportResult) {
  if (!result.ok) {
    if (result.code === "currency_not_kes") return m.shopify_products_currency({ currency: result.currency });
    if (result.code === "scope_missing") return m.shopify_products_needs_scope();
    if (result.code === "not_connected") return m.shopify_products_not_connected();
    return m.shopify_products_unavailable();
  }
  const counts = { created: result.created, updated: result.updated, removed: result.removed };
  const said = result.kept.length
    ? m.shopify_products_done_kept({ ...counts, skus: result.kept.slice(0, 10).join(", ") })
    : m.shopify_products_done(counts);
  return result.refused ? `${said} ${m.shopify_products_done_refused({ count: result.refused })}` : said;
}

interface ProductEvent {
  id: string;
  organization_id: string;
  shop: string;
  topic: string;
  payload: Record<string, unknown>;
}

const productIdOf = (payload: Record<string, unknown>) =>
  typeof payload.id === "number" && Number.isSafeInteger(payload.id) && payload.id > 0
    ? String(payload.id)
    : typeof payload.id === "string" && /^[1-9]\d{0,19}$/.test(payload.id)
      ? payload.id
      : null;

/**
 * products/create, update and delete: for an organisation that imported its shop's products, each
 * product named is read again from the shop and saved as it is there (gone there: removed here). Each
 * event's outcome is written after: done (products_synced or product_sku_kept), or ignored.
 */
export async function syncProductEvents(events: ProductEvent[]) {
  const groups = new Map<string, ProductEvent[]>();
  for (const event of events)
    groups.set(`${event.organization_id} ${event.shop}`, [...(groups.get(`${event.organization_id} ${event.shop}`) ?? []), event]);
  for (const group of groups.values()) await syncGroup(group);
}

async function syncGroup(group: ProductEvent[]) {
  const { organization_id: organizationId, shop } = group[0]!;
  const ids = group.map((e) => e.id);
  const [settings] = await queryRows<{ imported: boolean }>(
    db(),
    sql`select products_imported_at is not null as imported from shopify_settings where organization_id = ${organizationId}`,
  );
  const token = settings?.imported ? await shopTokenOf(organizationId, shop) : null;
  if (!token) return finishProductEvents(ids, "ignored", "products_not_imported");
  const productIds = [...new Set(group.map((e) => productIdOf(e.payload)).filter((id): id is string => id !== null))];
  if (!productIds.length) return finishProductEvents(ids, "ignored", "topic_not_used");
  const answer = await withRetry(() =>
    shopify().productsById(
      shop,
      token,
      productIds.map((id) => `gid://shopify/Product/${id}`),
    ),
  );
  if (answer.currency !== "KES") return finishProductEvents(ids, "skipped", "currency_not_kes");
  const items: SourcedProduct[] = [];
  const gone: string[] = [];
  const variantsKept = new Map<string, string[]>();
  answer.products.forEach((product, i) => {
    if (!product) return void gone.push(productIds[i]!);
    const made = productsOfShopify(shop, product);
    items.push(...made.items);
    variantsKept.set(
      productIds[i]!,
      made.items.map((item) => item.shopifyVariantId),
    );
  });
  const outcome = await saveSourcedProducts(organizationId, shop, items, { productIds: gone, variantsKept });
  // Each event says whether its product had a SKU kept as made in Jumbe.
  const kept = new Set(outcome.kept);
  const keptProducts = new Set(items.filter((item) => kept.has(item.retailerId)).map((item) => item.shopifyProductId));
  await finishProductEvents(
    group.filter((e) => keptProducts.has(productIdOf(e.payload) ?? "")).map((e) => e.id),
    "done",
    "product_sku_kept",
  );
  await finishProductEvents(ids, "done", "products_synced");
}

async function finishProductEvents(ids: string[], status: "done" | "ignored" | "skipped", reason: string) {
  await db().execute(sql`
    update shopify_events set status = ${status}, reason = ${reason}, processed_at = now()
    where id = any(${sql.param(ids)}::uuid[]) and status = 'received'`);
}
