import { and, eq, isNull, desc, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { products, shopCatalogs, whatsappAccounts, whatsappPhoneNumbers } from "../../infrastructure/db/schema";
import {
  GraphApiError,
  graphClient,
  type GraphClient,
  type GraphProductFields,
} from "../../infrastructure/clients/whatsapp-graph/graph-client";
import type { Job } from "../../infrastructure/jobs/queue";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { recordActivity } from "../activity";
import { type Product } from "./products";
import { productImageUrl } from "./images";
import { englishOf, words } from "../../infrastructure/words/said";
import { m } from "~/paraglide/messages";

/**
 * The organisation's Meta commerce catalog (decision 138): made and connected to its WhatsApp
 * Business Account the first time a product is pushed (a catalog Meta already connected is
 * adopted), with the cart on and the shop icon shown on its numbers. A product changed by hand is
 * pushed by itself by the /products edge; many at once go as one batch (catalog-batch.ts).
 */

export const SHOP_RECONCILE_QUEUE = "shop.reconcile";

export interface Account {
  id: string;
  organizationId: string;
  wabaId: string;
  businessId: string | null;
  token: string;
}

/** Why the shop cannot reach Meta now, in words for the product's row; the job does not retry it. */
class NotReady extends Error {}

/** The organisation's connected WhatsApp account whose token Meta still takes, or null. */
async function connectedAccount(organizationId: string): Promise<Account | null> {
  const [row] = await db()
    .select({
      id: whatsappAccounts.id,
      wabaId: whatsappAccounts.wabaId,
      businessId: whatsappAccounts.businessId,
      token: whatsappAccounts.accessTokenEncrypted,
    })
    .from(whatsappAccounts)
    .where(
      and(
        eq(whatsappAccounts.organizationId, organizationId),
        eq(whatsappAccounts.status, "connected"),
        isNull(whatsappAccounts.tokenRefusedAt),
      ),
    )
    .orderBy(desc(whatsappAccounts.connectedAt))
    .limit(1);
  return row ? { ...row, organizationId, token: decryptSecret(row.token) } : null;
}

/** The organisation's catalog id at Meta, or null before the first product was pushed. */
export async function catalogIdOf(organizationId: string): Promise<string | null> {
  const [row] = await db()
    .select({ catalogId: shopCatalogs.catalogId })
    .from(shopCatalogs)
    .innerJoin(whatsappAccounts, eq(whatsappAccounts.id, shopCatalogs.accountId))
    .where(and(eq(shopCatalogs.organizationId, organizationId), eq(whatsappAccounts.status, "connected")))
    .orderBy(desc(shopCatalogs.createdAt))
    .limit(1);
  return row?.catalogId ?? null;
}

/** The account's catalog: the one Jumbe made, else the one Meta has connected, else a new one. */
async function ensureCatalog(account: Account, client: GraphClient): Promise<string> {
  const [known] = await db().select().from(shopCatalogs).where(eq(shopCatalogs.accountId, account.id));
  if (known) return known.catalogId;
  let catalogId = (await client.connectedCatalogs(account.wabaId, account.token))[0];
  if (!catalogId) {
    // Embedded Signup may leave the business unknown: Meta names the WABA's owner.
    const businessId = account.businessId ?? (await client.wabaOwnerBusiness(account.wabaId, account.token));
    if (!businessId) throw new NotReady(m.shop_sync_no_business());
    if (!account.businessId) await db().update(whatsappAccounts).set({ businessId }).where(eq(whatsappAccounts.id, account.id));
    catalogId = await client.createCatalog(businessId, "Jumbe shop", account.token);
    await client.connectCatalog(account.wabaId, catalogId, account.token);
  }
  const numbers = await db()
    .select({ phoneNumberId: whatsappPhoneNumbers.phoneNumberId })
    .from(whatsappPhoneNumbers)
    .where(eq(whatsappPhoneNumbers.accountId, account.id));
  for (const n of numbers) await client.enableCommerce(n.phoneNumberId, account.token);
  await db()
    .insert(shopCatalogs)
    .values({ organizationId: account.organizationId, accountId: account.id, catalogId })
    .onConflictDoNothing();
  await recordActivity({
    organizationId: account.organizationId,
    type: "settings",
    status: "success",
    action: "Shop catalog connected",
    details: englishOf(words("app_activity_detail_shop_catalog_connected", { catalog: catalogId, waba: account.wabaId })),
  });
  return catalogId;
}

export const fieldsFor = (p: Product): GraphProductFields => ({
  retailerId: p.retailerId,
  name: p.name,
  description: p.description,
  priceCents: p.priceCents,
  currency: p.currency,
  imageUrl: productImageUrl(p),
  availability: p.availability,
});

/** Meta's reason, in the words it gives people when it gives them. */
export const reasonOf = (error: GraphApiError) => (error.userMessage ?? error.details ?? error.message).slice(0, 500);

/** Pushes one product as it stands now: created, updated, or (removed) deleted at Meta and here. */
async function pushProduct(product: Product, catalogId: string, account: Account, client: GraphClient) {
  const metaId = product.metaProductId;
  if (product.removedAt) {
    if (metaId) await ignoreGone(() => client.deleteProduct(metaId, account.token));
    await db().delete(products).where(eq(products.id, product.id));
    return;
  }
  let id = metaId;
  try {
    if (id) await client.updateProduct(id, fieldsFor(product), account.token);
    else id = await client.createProduct(catalogId, fieldsFor(product), account.token);
  } catch (error) {
    if (!(error instanceof GraphApiError) || error.retryable) throw error;
    await db()
      .update(products)
      .set({ syncState: "failed", syncError: reasonOf(error) })
      .where(and(eq(products.id, product.id), sameVersion(product)));
    return;
  }
  // Changed again meanwhile: the next job pushes that version and marks it.
  await db()
    .update(products)
    .set({ metaProductId: id, syncState: "synced", syncError: null, syncedAt: new Date() })
    .where(and(eq(products.id, product.id), sameVersion(product)));
}

/**
 * The product as it was read (not changed since): its updated_at to the millisecond, as JavaScript
 * read it (PostgreSQL keeps microseconds, so comparing the Date itself would never match there).
 */
const sameVersion = (product: Product) => sameVersionAt(product.updatedAt.toISOString());

/** The same, for a version kept as its ISO text (a batch's products). */
export const sameVersionAt = (version: string) => sql`date_trunc('milliseconds', ${products.updatedAt}) = ${version}::timestamptz`;

/** A delete of what Meta no longer holds (100/33) is done. */
async function ignoreGone(work: () => Promise<void>) {
  try {
    await work();
  } catch (error) {
    if (error instanceof GraphApiError && error.code === 100) return;
    throw error;
  }
}

/** The organisation's account and catalog, or the product marked failed with why not. */
export async function reach(organizationId: string, client: GraphClient, productId?: string) {
  try {
    const account = await connectedAccount(organizationId);
    if (!account) throw new NotReady(m.shop_sync_no_account());
    return { account, catalogId: await ensureCatalog(account, client) };
  } catch (error) {
    const reason = error instanceof NotReady ? error.message : error instanceof GraphApiError && !error.retryable ? reasonOf(error) : null;
    if (reason === null) throw error;
    const scope = productId ? eq(products.id, productId) : isNull(products.removedAt);
    await db()
      .update(products)
      .set({ syncState: "failed", syncError: reason })
      .where(and(eq(products.organizationId, organizationId), scope));
    return null;
  }
}

/** The sync job: one product (and, after a change of SKU, the old item at Meta). */
export async function runProductSync(
  jobs: Job<{ organizationId: string; productId: string; deleteMetaId?: string }>[],
  client: GraphClient = graphClient(),
) {
  for (const { payload } of jobs) {
    const [product] = await db()
      .select()
      .from(products)
      .where(and(eq(products.id, payload.productId), eq(products.organizationId, payload.organizationId)));
    const reached = await reach(payload.organizationId, client, product?.id);
    if (!reached) continue;
    if (payload.deleteMetaId) await ignoreGone(() => client.deleteProduct(payload.deleteMetaId!, reached.account.token));
    if (product) await pushProduct(product, reached.catalogId, reached.account, client);
  }
}
