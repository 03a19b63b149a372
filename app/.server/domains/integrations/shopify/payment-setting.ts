import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordActivity } from "../../activity";
import { englishOf, words } from "../../../infrastructure/words/said";
import { connectedShop } from "./mappings";

/** Whether the organisation's pending Shopify orders ask their customers to pay by M-Pesa (decision 142). */
export async function asksForPayment(organizationId: string): Promise<boolean> {
  const [row] = await queryRows<{ ask_payment: boolean }>(
    db(),
    sql`select ask_payment from shopify_settings where organization_id = ${organizationId}`,
  );
  return row?.ask_payment ?? false;
}

/** Turns asking on or off (owners and admins, the route checks), in the activity log; only while a shop is connected (404). */
export async function saveAskPayment(actor: { organizationId: string; userId: string; meta?: RequestMeta }, on: boolean) {
  const shop = await connectedShop(actor.organizationId);
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
