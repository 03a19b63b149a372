import { and, eq, inArray } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { products, shopCatalogBatches } from "../../infrastructure/db/schema";
import { GraphApiError, graphClient, type GraphClient } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { CATALOG_BATCH_MAX, type CatalogBatchRequest } from "../../infrastructure/clients/whatsapp-graph/graph-catalog-batch";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { fieldsFor, reach, reasonOf, sameVersionAt, type Account } from "./catalog";
import type { Product } from "./products";
import { m } from "~/paraglide/messages";

/**
 * Many products to Meta in one call (decision 141): a CSV import and "sync now" send every waiting
 * product as one `items_batch` (UPDATE creates what the catalog lacks; DELETE for removed products),
 * instead of one call per product. Meta answers a handle; the status job reads the outcome and marks
 * each product synced, or failed with Meta's words for that item, if it has not changed since.
 */

export const SHOP_BATCH_QUEUE = "shop.sync-batch";
export const SHOP_BATCH_STATUS_QUEUE = "shop.batch-status";
/** Meta works through a batch in seconds to minutes: asked again every 10 s, for at most 30 minutes. */
const POLL_MS = 10_000;
const POLLS_MAX = 180;

export interface BatchJob {
  organizationId: string;
  /** "Sync now": every product, and what the catalog holds that Jumbe does not deleted. */
  reconcile?: boolean;
}

/** Queues one batch of the organisation's waiting products (in the transaction that made them wait). */
export async function queueBatchSync(executor: Executor, organizationId: string, reconcile = false) {
  await enqueueJob(SHOP_BATCH_QUEUE, { organizationId, reconcile } satisfies BatchJob, { executor });
}

/** The products a batch carries: those waiting (all, reconciling), at most the batch's limit. */
async function batchedProducts(organizationId: string, reconcile: boolean): Promise<Product[]> {
  const scope = reconcile
    ? eq(products.organizationId, organizationId)
    : and(eq(products.organizationId, organizationId), eq(products.syncState, "pending"));
  return db().select().from(products).where(scope).limit(CATALOG_BATCH_MAX);
}

/** Reconciling: what the catalog holds that Jumbe does not (deleted there); and removed products it does not hold (done here). */
async function strays(catalogId: string, account: Account, client: GraphClient, local: Product[]) {
  const remote = new Set((await client.listProducts(catalogId, account.token)).map((p) => p.retailerId));
  const known = new Set(local.map((p) => p.retailerId));
  const gone = local.filter((p) => p.removedAt && !remote.has(p.retailerId));
  if (gone.length)
    await db()
      .delete(products)
      .where(
        inArray(
          products.id,
          gone.map((p) => p.id),
        ),
      );
  return { extra: [...remote].filter((id) => !known.has(id)), sent: local.filter((p) => !gone.includes(p)) };
}

/** The batch job: sends the waiting products in one items_batch and queues the reading of its outcome. */
export async function sendProductBatch(job: BatchJob, client: GraphClient = graphClient()) {
  const reached = await reach(job.organizationId, client);
  if (!reached) return;
  const { account, catalogId } = reached;
  let sent = await batchedProducts(job.organizationId, Boolean(job.reconcile));
  let extra: string[] = [];
  if (job.reconcile) ({ extra, sent } = await strays(catalogId, account, client, sent));
  const requests: CatalogBatchRequest[] = [
    ...sent.map((p): CatalogBatchRequest =>
      p.removedAt ? { method: "DELETE", retailerId: p.retailerId } : { method: "UPDATE", product: fieldsFor(p) },
    ),
    ...extra.map((retailerId): CatalogBatchRequest => ({ method: "DELETE", retailerId })),
  ].slice(0, CATALOG_BATCH_MAX);
  if (!requests.length) return;
  let handle: string;
  try {
    handle = await client.itemsBatch(catalogId, requests, account.token);
  } catch (error) {
    if (!(error instanceof GraphApiError) || error.retryable) throw error;
    await markFailed(sent.map(versionOf), reasonOf(error));
    return;
  }
  await db().transaction(async (tx) => {
    const [batch] = await tx
      .insert(shopCatalogBatches)
      .values({ organizationId: job.organizationId, catalogId, handle, products: sent.map(versionOf) })
      .returning({ id: shopCatalogBatches.id });
    await enqueueJob(SHOP_BATCH_STATUS_QUEUE, { batchId: batch!.id, polls: 0 }, { executor: tx });
  });
  log().info({ organizationId: job.organizationId, requests: requests.length }, "shop catalog batch sent");
}

const versionOf = (p: Product) => ({ id: p.id, version: p.updatedAt.toISOString() });

async function markFailed(batched: { id: string; version: string }[], reason: string) {
  for (const p of batched)
    await db()
      .update(products)
      .set({ syncState: "failed", syncError: reason })
      .where(and(eq(products.id, p.id), sameVersionAt(p.version)));
}

/** The status job: Meta's outcome of a batch on its products, or asked again later while Meta works. */
export async function readBatchOutcome(job: { batchId: string; polls: number }, client: GraphClient = graphClient()) {
  const [batch] = await db().select().from(shopCatalogBatches).where(eq(shopCatalogBatches.id, job.batchId));
  if (!batch || batch.status === "finished") return;
  const reached = await reach(batch.organizationId, client);
  if (!reached) return;
  const status = await client.batchStatus(batch.catalogId, batch.handle, reached.account.token);
  if (!status.finished) {
    if (job.polls + 1 < POLLS_MAX)
      await enqueueJob(SHOP_BATCH_STATUS_QUEUE, { batchId: batch.id, polls: job.polls + 1 }, { delayMs: POLL_MS });
    else {
      await markFailed(batch.products, m.shop_sync_batch_unfinished());
      await db().update(shopCatalogBatches).set({ status: "finished", finishedAt: new Date() }).where(eq(shopCatalogBatches.id, batch.id));
    }
    return;
  }
  await applyOutcome(batch, status.errors, reached.account, client);
}

/** Marks each product of a finished batch; removed ones are deleted; Meta's item ids are kept for single pushes. */
async function applyOutcome(
  batch: typeof shopCatalogBatches.$inferSelect,
  errors: { retailerId: string; message: string }[],
  account: Account,
  client: GraphClient,
) {
  const refused = new Map(errors.map((e) => [e.retailerId, e.message]));
  const ids = batch.products.map((p) => p.id);
  const rows = ids.length
    ? await db()
        .select()
        .from(products)
        .where(and(inArray(products.id, ids), eq(products.organizationId, batch.organizationId)))
    : [];
  const remote = new Map((await client.listProducts(batch.catalogId, account.token)).map((p) => [p.retailerId, p.id]));
  const versions = new Map(batch.products.map((p) => [p.id, p.version]));
  for (const row of rows) {
    const version = sameVersionAt(versions.get(row.id)!);
    if (row.removedAt) {
      await db()
        .delete(products)
        .where(and(eq(products.id, row.id), version));
      continue;
    }
    const reason = refused.get(row.retailerId);
    await db()
      .update(products)
      .set(
        reason
          ? { syncState: "failed", syncError: reason }
          : { syncState: "synced", syncError: null, syncedAt: new Date(), metaProductId: remote.get(row.retailerId) ?? row.metaProductId },
      )
      .where(and(eq(products.id, row.id), version));
  }
  await db().update(shopCatalogBatches).set({ status: "finished", finishedAt: new Date() }).where(eq(shopCatalogBatches.id, batch.id));
}

/** "Sync now" (SHOP_RECONCILE_QUEUE): every product sent again in one batch, and what the catalog holds that Jumbe does not deleted there. */
export async function reconcileCatalog(organizationId: string, client: GraphClient = graphClient()) {
  await sendProductBatch({ organizationId, reconcile: true }, client);
}
