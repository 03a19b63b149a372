import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { Job } from "../../../infrastructure/jobs/queue";
import { shopifyClient, ShopifyError, type ShopifyClient } from "../../../infrastructure/clients/shopify";
import { recordActivity } from "../../activity";
import { englishOf, words } from "../../../infrastructure/words/said";
import { shopTokenOf } from "./confirm";
import { withRetry } from "./provider";
import type { OrderPaymentReason } from "./order-payments";

/**
 * The job that tells the shop a Shopify order was paid by M-Pesa (issue 76, decision 142): GraphQL
 * `orderMarkAsPaid` with the shop's token, outside the payment's transaction, retried by the queue
 * while Shopify is throttled or down. Idempotent: an order already marked is not asked again, and when
 * the shop refuses because the order is already paid (this job's earlier call answered after all, or
 * the merchant marked it), the shop's own status says it is done.
 */

let client: ShopifyClient | null = null;
const shopify = () => (client ??= shopifyClient());

interface Paid {
  id: string;
  organization_id: string;
  shop: string;
  order_id: string;
  reference: string | null;
}

export async function markShopifyOrdersPaid(jobs: Job<{ id: string }>[]) {
  for (const job of jobs) await markOne(job.payload.id);
}

async function markOne(id: string) {
  const [row] = await queryRows<Paid>(
    db(),
    sql`select id, organization_id, shop, order_id, reference from shopify_order_payments where id = ${id} and status = 'paid'`,
  );
  if (!row) return;
  const token = await shopTokenOf(row.organization_id, row.shop);
  if (!token) return failed(row, "mark_not_connected");
  const gid = `gid://shopify/Order/${row.order_id}`;
  try {
    const outcome = await withRetry(() => shopify().markOrderPaid(row.shop, token, gid));
    if (outcome.marked) return marked(row);
    // Refused: already paid in the shop is done; anything else is the shop's no.
    const status = await withRetry(() => shopify().orderFinancialStatus(row.shop, token, gid));
    return status === "PAID" ? marked(row) : failed(row, "mark_refused");
  } catch (error) {
    if (error instanceof ShopifyError && error.kind === "forbidden") return failed(row, "mark_scope");
    if (error instanceof ShopifyError && ["expired_token", "revoked", "not_found"].includes(error.kind))
      return failed(row, "mark_not_connected");
    throw error;
  }
}

async function marked(row: Paid) {
  await db().transaction(async (tx) => {
    const done = await queryRows<{ id: string }>(
      tx,
      sql`update shopify_order_payments set status = 'marked', marked_at = now(), updated_at = now()
          where id = ${row.id} and status = 'paid' returning id`,
    );
    if (done.length)
      await recordActivity(
        {
          organizationId: row.organization_id,
          type: "settings",
          status: "success",
          action: "Integration synced",
          details: englishOf(words("shopify_activity_order_marked_paid", { reference: row.reference ?? row.order_id, shop: row.shop })),
        },
        tx,
      );
  });
}

async function failed(row: Paid, reason: OrderPaymentReason) {
  await db().transaction(async (tx) => {
    const done = await queryRows<{ id: string }>(
      tx,
      sql`update shopify_order_payments set status = 'mark_failed', reason = ${reason}, updated_at = now()
          where id = ${row.id} and status = 'paid' returning id`,
    );
    if (done.length)
      await recordActivity(
        {
          organizationId: row.organization_id,
          type: "settings",
          status: "warning",
          action: "Integration synced",
          details: englishOf(words("shopify_activity_order_not_marked", { reference: row.reference ?? row.order_id, shop: row.shop })),
        },
        tx,
      );
  });
}
