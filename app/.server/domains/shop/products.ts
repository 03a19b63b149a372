import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { products } from "../../infrastructure/db/schema";
import { isUuid } from "../../infrastructure/db/keyset";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { Refusal } from "../../infrastructure/refusal";
import { recordActivity } from "../activity";
import type { ProductInput } from "~/lib/schemas/shop";
import { discardProductImage, storeProductImage, type StoredImage } from "./images";
import { m } from "~/paraglide/messages";

/**
 * The organisation's products (decision 138): Jumbe's list is the truth, and each change is pushed
 * to the Meta catalog by a job (SHOP_SYNC_QUEUE), which marks the product synced or failed with
 * Meta's reason. A removed product stays, marked, until the catalog no longer holds it.
 */

export const SHOP_SYNC_QUEUE = "shop.sync-product";
/** The most products an organisation keeps (a product list sends at most 30; the catalog holds the rest). */
export const PRODUCTS_MAX = 2000;

export interface ShopActor {
  organizationId: string;
  userId: string | null;
  meta?: RequestMeta;
}

export type Product = typeof products.$inferSelect;

export const refuseShop = (status: 400 | 404 | 409 | 413 | 415 | 422 | 502, message: string, field?: string) =>
  new Refusal({ domain: "shop", status, message, field });

/** The organisation's products (not removed), by name. */
export async function listProducts(organizationId: string, executor: Executor = db()): Promise<Product[]> {
  return executor
    .select()
    .from(products)
    .where(and(eq(products.organizationId, organizationId), isNull(products.removedAt)))
    .orderBy(asc(products.name), asc(products.retailerId))
    .limit(PRODUCTS_MAX);
}

/** One product of the organisation; null for an unknown, removed or another organisation's id. */
export async function getProduct(organizationId: string, id: string): Promise<Product | null> {
  if (!isUuid(id)) return null;
  const [row] = await db()
    .select()
    .from(products)
    .where(and(eq(products.organizationId, organizationId), eq(products.id, id), isNull(products.removedAt)));
  return row ?? null;
}

/** The product or a 404 refusal. */
export async function requireProduct(organizationId: string, id: string): Promise<Product> {
  const found = await getProduct(organizationId, id);
  if (!found) throw refuseShop(404, m.shop_product_not_found());
  return found;
}

/** Queues the push of one product to the Meta catalog (one waiting job per product). */
export async function queueProductSync(executor: Executor, organizationId: string, productId: string) {
  await enqueueJob(SHOP_SYNC_QUEUE, { organizationId, productId }, { executor, uniqueKey: `shop-sync:${productId}` });
}

const skuTaken = () => refuseShop(409, m.shop_product_sku_taken(), "retailerId");

/** A product as its page posts it: an uploaded image, or an image address (empty to keep a stored image). */
export type ProductChange = Omit<ProductInput, "imageUrl"> & { imageUrl: string; image?: File | undefined };

/** The uploaded image stored (checked by its bytes), or null when none was chosen. */
const storedUpload = (organizationId: string, input: ProductChange) =>
  input.image && input.image.size > 0 ? storeProductImage(organizationId, input.image) : null;

/** The image columns a change sets: a new upload, else an address (dropping a stored image), else nothing (kept). */
function imageFields(input: ProductChange, upload: StoredImage | null, keeps: boolean) {
  if (upload) return { imageUrl: null, imageKey: upload.key, imageToken: upload.token, imageType: upload.type };
  if (input.imageUrl) return { imageUrl: input.imageUrl, imageKey: null, imageToken: null, imageType: null };
  if (keeps) return {};
  throw refuseShop(400, m.shop_product_image_required(), "imageUrl");
}

/** Runs a save that stored an upload first: the upload's file goes if the save fails. */
async function withUpload<T>(upload: StoredImage | null, save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    await discardProductImage(upload?.key);
    throw error;
  }
}

/** Adds a product (its SKU once per organisation) and queues its push to the catalog. */
export async function createProduct(actor: ShopActor, input: ProductChange): Promise<Product> {
  if (!input.imageUrl && !(input.image && input.image.size > 0)) throw refuseShop(400, m.shop_product_image_required(), "imageUrl");
  const upload = await storedUpload(actor.organizationId, input);
  const saved = await withUpload(upload, () =>
    db().transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`shop-products:${actor.organizationId}`}))`);
      const [existing] = await tx
        .select({ id: products.id, removedAt: products.removedAt })
        .from(products)
        .where(and(eq(products.organizationId, actor.organizationId), eq(products.retailerId, input.retailerId)));
      if (existing && !existing.removedAt) throw skuTaken();
      if (existing) await tx.delete(products).where(eq(products.id, existing.id));
      const [counted] = await tx
        .select({ count: sql<number>`count(*)::int` })
        .from(products)
        .where(and(eq(products.organizationId, actor.organizationId), isNull(products.removedAt)));
      if ((counted?.count ?? 0) >= PRODUCTS_MAX) throw refuseShop(409, m.shop_product_limit({ max: PRODUCTS_MAX }));
      const [row] = await tx
        .insert(products)
        .values({ organizationId: actor.organizationId, ...fieldsOf(input), ...imageFields(input, upload, false), syncState: "pending" })
        .returning();
      await queueProductSync(tx, actor.organizationId, row!.id);
      return row!;
    }),
  );
  await record(actor, "Product added", saved);
  return saved;
}

/** Changes a product; its SKU may change while no other product holds it. */
export async function updateProduct(actor: ShopActor, id: string, input: ProductChange): Promise<Product> {
  const before = await requireProduct(actor.organizationId, id);
  const upload = await storedUpload(actor.organizationId, input);
  // Throws only without an upload: nothing stored to discard.
  const image = imageFields(input, upload, Boolean(before.imageKey));
  const saved = await withUpload(upload, () =>
    db().transaction(async (tx) => {
      const [clash] = await tx
        .select({ id: products.id })
        .from(products)
        .where(and(eq(products.organizationId, actor.organizationId), eq(products.retailerId, input.retailerId)));
      if (clash && clash.id !== id) throw skuTaken();
      const [row] = await tx
        .update(products)
        .set({
          ...fieldsOf(input),
          ...image,
          syncState: "pending",
          syncError: null,
          updatedAt: new Date(),
        })
        .where(and(eq(products.id, id), eq(products.organizationId, actor.organizationId)))
        .returning();
      // A new SKU is a new item at Meta: the old one is deleted there first (the job reads metaProductId).
      if (before.retailerId !== input.retailerId && before.metaProductId)
        await enqueueJob(
          SHOP_SYNC_QUEUE,
          { organizationId: actor.organizationId, productId: id, deleteMetaId: before.metaProductId },
          { executor: tx },
        );
      await queueProductSync(tx, actor.organizationId, id);
      return row!;
    }),
  );
  if (before.imageKey && saved.imageKey !== before.imageKey) await discardProductImage(before.imageKey);
  await record(actor, "Product changed", saved);
  return saved;
}

/** Removes a product: hidden at once, deleted once the catalog no longer holds it. */
export async function removeProduct(actor: ShopActor, id: string): Promise<Product> {
  const product = await requireProduct(actor.organizationId, id);
  await db().transaction(async (tx) => {
    await tx
      .update(products)
      .set({ removedAt: new Date(), syncState: "pending", updatedAt: new Date(), imageKey: null, imageToken: null, imageType: null })
      .where(and(eq(products.id, id), eq(products.organizationId, actor.organizationId)));
    await queueProductSync(tx, actor.organizationId, id);
  });
  // Its public address answers 404 from now on; the file goes with it.
  await discardProductImage(product.imageKey);
  await record(actor, "Product removed", product);
  return product;
}

function fieldsOf(input: ProductChange) {
  return {
    name: input.name,
    description: input.description,
    priceCents: input.price,
    currency: "KES",
    retailerId: input.retailerId,
    availability: input.availability,
  };
}

async function record(actor: ShopActor, action: string, product: Product) {
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action,
    details: `${product.name} (${product.retailerId})`,
    meta: actor.meta,
  });
}
