import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { Refusal } from "../../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/**
 * The scopes asked for after the first shops were connected (decision 142): a shop connected before
 * has an offline token without them, and Shopify refuses the calls that need them. Each names the
 * feature that needs it; the page shows what is missing and the way to connect again (decision 147).
 */
export const LATER_SCOPES = ["write_orders", "read_products"] as const;
export type LaterScope = (typeof LATER_SCOPES)[number];

/** The later scopes the organisation's connected shop has not granted (none when no shop is connected). */
export async function missingShopifyScopes(organizationId: string): Promise<LaterScope[]> {
  const [row] = await queryRows<{ scopes: string[] | null }>(
    db(),
    sql`select scopes from integration_connections
        where organization_id = ${organizationId} and provider = 'shopify' and status = 'connected'`,
  );
  if (!row) return [];
  const granted = new Set(row.scopes ?? []);
  return LATER_SCOPES.filter((scope) => !granted.has(scope));
}

/** The words that say a feature waits for the shop to be connected again. */
export function scopeMissingWords(scope: LaterScope) {
  return scope === "write_orders" ? m.shopify_pay_needs_scope() : m.shopify_products_needs_scope();
}

/** Refuses (409, in words) what needs a scope the connected shop has not granted. */
export async function requireShopifyScope(organizationId: string, scope: LaterScope) {
  if ((await missingShopifyScopes(organizationId)).includes(scope))
    throw new Refusal({ domain: "integration", status: 409, code: "shopify_scope_missing", message: scopeMissingWords(scope) });
}
