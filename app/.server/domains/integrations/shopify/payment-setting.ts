import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordActivity } from "../../activity";
import { englishOf, words } from "../../../infrastructure/words/said";
import { connectedShop } from "./mappings";
import { requireShopifyScope } from "./scopes";

/**
 * The organisation's Shopify choices (decision 142): whether pending orders ask their customers to pay
 * by M-Pesa, and when the shop's products were first imported (null: never).
 */
export async function shopifySettingsOf(organizationId: string): Promise<{ askPayment: boolean; productsImportedAt: string | null }> {
  const [row] = await queryRows<{ ask_payment: boolean; products_imported_at: Date | string | null }>(
    db(),
    sql`select ask_payment, products_imported_at from shopify_settings where organization_id = ${organizationId}`,
  );
  return {
    askPayment: row?.ask_payment ?? false,
    productsImportedAt: row?.products_imported_at ? new Date(row.products_imported_at).toISOString() : null,
  };
}

/**
 * Turns asking on or off (owners and admins, the route checks), in the activity log; only while a shop
 * is connected (404), and on only when the shop granted write_orders (409: connect it again, decision 147).
 */
export async function saveAskPayment(actor: { organizationId: string; userId: string; meta?: RequestMeta }, on: boolean) {
  const shop = await connectedShop(actor.organizationId);
  if (on) await requireShopifyScope(actor.organizationId, "write_orders");
  await db().transaction(async (tx) => {
    const changed = await queryRows<{ organization_id: string }>(
      tx,
      sql`insert into shopify_settings (organization_id, ask_payment) values (${actor.organizationId}, ${on})
          on conflict (organization_id) do update set ask_payment = excluded.ask_payment, updated_at = now()
            where shopify_settings.ask_payment is distinct from excluded.ask_payment
          returning organization_id`,
    );
    if (changed.length)
      await recordActivity(
        {
          organizationId: actor.organizationId,
          userId: actor.userId,
          type: "settings",
          status: "success",
          action: "Shopify payment setting changed",
          details: englishOf(words(on ? "shopify_activity_ask_payment_on" : "shopify_activity_ask_payment_off", { shop })),
          meta: actor.meta,
        },
        tx,
      );
  });
  return on;
}
