import { and, eq, inArray, isNull, notInArray, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { products } from "../../infrastructure/db/schema";
import { PRODUCTS_MAX, refuseShop } from "./products";
import { queueBatchSync } from "./catalog-batch";
import { m } from "~/paraglide/messages";

/**
 * Products that come from a shop elsewhere (Shopify, decision 142): each variant one product, keyed by
 * its retailer id as every product is, and marked with the shop, product and variant it is. A product
 * made in Jumbe (by hand or CSV) that holds the same retailer id is never overwritten: it is kept, and
 * counted so the page can say which SKUs clash. What changed goes to the catalog in one batch.
 */

export interface SourcedProduct {
  retailerId: string;
  name: string;
  description: string;
  priceCents: number;
  imageUrl: string;
  availability: "in stock" | "out of stock";
  shopifyShop: string;
  shopifyProductId: string;
  shopifyVariantId: string;
}

export interface SourcedOutcome {
  created: number;
  updated: number;
  /** Retailer ids held by a product made in Jumbe (or another shop's): not overwritten. */
  kept: string[];
  removed: number;
}

/** What is gone from the shop: these products; variants not in these lists; or (a full import) every product but these. */
export interface Gone {
  productIds: string[];
  variantsKept?: Map<string, string[]>;
  allBut?: string[];
}

const lock = (tx: Executor, organizationId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`shop-products:${organizationId}`}))`);

/**
 * Saves a shop's products (those of `productIds` that are gone from the shop, or variants gone from a
 * product, removed) and queues one catalog batch; over the organisation's limit, nothing is saved (409).
 */
export async function saveSourcedProducts(
  organizationId: string,
  shop: string,
  items: SourcedProduct[],
  gone: Gone = { productIds: [] },
): Promise<SourcedOutcome> {
  const outcome: SourcedOutcome = { created: 0, updated: 0, kept: [], removed: 0 };
  await db().transaction(async (tx) => {
    await lock(tx, organizationId);
    for (const item of items) {
      const [row] = await tx
        .insert(products)
        .values({ organizationId, ...item, currency: "KES" })
        .onConflictDoUpdate({
          target: [products.organizationId, products.retailerId],
          set: {
            name: item.name,
            description: item.description,
            priceCents: item.priceCents,
            imageUrl: item.imageUrl,
            availability: item.availability,
            shopifyProductId: item.shopifyProductId,
            shopifyVariantId: item.shopifyVariantId,
            removedAt: null,
            syncState: "pending",
            syncError: null,
            updatedAt: new Date(),
          },
          // Only the same shop's product: one made in Jumbe, or another shop's, keeps its row.
          setWhere: sql`${products.shopifyShop} = ${shop}`,
        })
        .returning({ id: products.id, inserted: sql<boolean>`(xmax = 0)` });
      if (!row) outcome.kept.push(item.retailerId);
      else if (row.inserted) outcome.created++;
      else outcome.updated++;
    }
    outcome.removed = await removeGone(tx, organizationId, shop, gone);
    if (outcome.created || outcome.updated || outcome.removed) await queueBatchSync(tx, organizationId);
    const [counted] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(products)
      .where(and(eq(products.organizationId, organizationId), isNull(products.removedAt)));
    if ((counted?.count ?? 0) > PRODUCTS_MAX) throw refuseShop(409, m.shop_product_limit({ max: PRODUCTS_MAX }));
  });
  return outcome;
}

/** The shop's products gone from it (or their variants gone): removed, to leave the catalog with the next batch. */
async function removeGone(tx: Executor, organizationId: string, shop: string, gone: Gone) {
  let removed = 0;
  const mark = { removedAt: new Date(), syncState: "pending" as const, updatedAt: new Date() };
  const mine = and(eq(products.organizationId, organizationId), eq(products.shopifyShop, shop), isNull(products.removedAt));
  if (gone.productIds.length)
    removed += (
      await tx
        .update(products)
        .set(mark)
        .where(and(mine, inArray(products.shopifyProductId, gone.productIds)))
        .returning({ id: products.id })
    ).length;
  if (gone.allBut)
    removed += (
      await tx
        .update(products)
        .set(mark)
        .where(and(mine, gone.allBut.length ? notInArray(products.shopifyProductId, gone.allBut) : undefined))
        .returning({ id: products.id })
    ).length;
  for (const [productId, variantIds] of gone.variantsKept ?? new Map<string, string[]>())
    removed += (
      await tx
        .update(products)
        .set(mark)
        .where(
          and(
            mine,
            eq(products.shopifyProductId, productId),
            variantIds.length ? notInArray(products.shopifyVariantId, variantIds) : undefined,
          ),
        )
        .returning({ id: products.id })
    ).length;
  return removed;
}
