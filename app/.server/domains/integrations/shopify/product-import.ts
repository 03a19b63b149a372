import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../../infrastructure/jobs/queue";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { Refusal } from "../../../infrastructure/refusal";
import { connectedShop } from "./mappings";
import { requireShopifyScope } from "./scopes";
import { importResultWords, importShopifyProducts, type ShopifyImportResult } from "./products";

/**
 * "Import products from Shopify" as a queued job (decision 147): the form queues it, one at a time per
 * organisation (the job's unique key: a second click while one waits or runs queues nothing), and the
 * job writes its state and result on the organisation's `shopify_settings` row, which the page reads.
 * Saving is keyed by retailer id (decision 142), so a job run again after a crash makes nothing twice.
 */
export const SHOPIFY_IMPORT_QUEUE = "shopify.import-products";
/** Attempts before the import is given up as "Shopify did not answer". */
export const SHOPIFY_IMPORT_ATTEMPTS = 3;

export interface ImportJobPayload {
  organizationId: string;
  userId: string;
  meta?: RequestMeta;
}

/** Queues the organisation's import: true, or false when one already waits or runs. Needs a connected shop with read_products. */
export async function queueShopifyImport(actor: ImportJobPayload): Promise<boolean> {
  await connectedShop(actor.organizationId);
  await requireShopifyScope(actor.organizationId, "read_products");
  return db().transaction(async (tx) => {
    const id = await enqueueJob(SHOPIFY_IMPORT_QUEUE, actor, { executor: tx, uniqueKey: `shopify-import:${actor.organizationId}` });
    if (id === null) return false;
    await tx.execute(sql`
      insert into shopify_settings (organization_id, import_state, import_requested_at) values (${actor.organizationId}, 'queued', now())
      on conflict (organization_id) do update
        set import_state = 'queued', import_requested_at = now(), import_finished_at = null, import_result = null, updated_at = now()`);
    return true;
  });
}

async function markImport(organizationId: string, state: "running" | "done" | "failed", result?: ShopifyImportResult) {
  await db().execute(sql`
    update shopify_settings set import_state = ${state}, updated_at = now(),
      import_finished_at = ${state === "running" ? null : sql`now()`},
      import_result = ${result ? JSON.stringify(result) : null}::jsonb
    where organization_id = ${organizationId}`);
}

/** The queue's work: one import a job, its state written before and its result after. */
export async function runShopifyImports(jobs: Job<ImportJobPayload>[]) {
  for (const job of jobs) {
    const actor = job.payload;
    await markImport(actor.organizationId, "running");
    let result: ShopifyImportResult;
    try {
      await requireShopifyScope(actor.organizationId, "read_products");
      result = await importShopifyProducts(actor);
    } catch (error) {
      if (error instanceof Refusal)
        result = { ok: false, code: error.code === "shopify_scope_missing" ? "scope_missing" : "not_connected" };
      else if (job.attempts >= SHOPIFY_IMPORT_ATTEMPTS) result = { ok: false, code: "shopify_unavailable" };
      // Shopify busy or down: the queue runs it again later; the page still says it is running.
      else throw error;
    }
    await markImport(actor.organizationId, result.ok ? "done" : "failed", result);
  }
}

export interface ImportView {
  state: "queued" | "running" | "done" | "failed" | null;
  requestedAt: string | null;
  finishedAt: string | null;
  /** The result in the reader's words (done or failed). */
  words: string | null;
}

/** The latest import as the page shows it. */
export async function importViewOf(organizationId: string): Promise<ImportView> {
  const [row] = await queryRows<{
    import_state: ImportView["state"];
    import_requested_at: Date | string | null;
    import_finished_at: Date | string | null;
    import_result: ShopifyImportResult | null;
  }>(
    db(),
    sql`select import_state, import_requested_at, import_finished_at, import_result from shopify_settings where organization_id = ${organizationId}`,
  );
  const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);
  return {
    state: row?.import_state ?? null,
    requestedAt: iso(row?.import_requested_at),
    finishedAt: iso(row?.import_finished_at),
    words: row?.import_result ? importResultWords(row.import_result) : null,
  };
}
