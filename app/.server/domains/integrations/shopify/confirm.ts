import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { decryptSecret } from "../../../infrastructure/security/crypto";
import { shopifyClient, ShopifyError, type ShopifyClient } from "../../../infrastructure/clients/shopify";
import { bodyShopOf, resourceGidOf } from "./fields";
import { withRetry } from "./provider";

/**
 * What binds a stored event to the shop it names (issue 71, decision 098). Shopify signs every shop's
 * webhooks with the one app secret and signs neither X-Shopify-Shop-Domain nor the event id, so a
 * valid signature says "some shop's event", not "this shop's". Before an event is acted on, the shop
 * it claims is asked with its own token whether the resource is its own (GraphQL `nodes`: Shopify
 * answers null for an id of another shop); only those it confirms go on.
 */

interface Claimed {
  id: string;
  organization_id: string;
  shop: string;
  topic: string;
  payload: Record<string, unknown>;
}

/** confirmed: the shop knows it; unknown: the shop does not (another shop's); unconfirmed: the shop could not be asked (no token, refused). */
export type Confirmation = "confirmed" | "unknown" | "unconfirmed";

let client: ShopifyClient | null = null;
const shopify = () => (client ??= shopifyClient());

/** The shop's token from the organisation's live connection to that very shop; null when there is none. */
export async function shopTokenOf(organizationId: string, shop: string) {
  const [row] = await queryRows<{ sealed: string | null }>(
    db(),
    sql`select access_token_sealed as sealed from integration_connections
        where organization_id = ${organizationId} and provider = 'shopify' and external_account_id = ${shop} and status = 'connected'`,
  );
  return row?.sealed ? decryptSecret(row.sealed) : null;
}

/** The shop refused the token or the question: only connecting again helps, so no retry. */
const refusedForGood = (error: unknown) =>
  error instanceof ShopifyError && ["expired_token", "revoked", "forbidden", "not_found", "refused"].includes(error.kind);

/**
 * Each event's confirmation, one `nodes` call per organisation and shop (250 ids a call). A call that
 * fails for a while (429, 5xx, a timeout) throws after its retries, so the job runs again later.
 */
export async function confirmAtShops(events: Claimed[]): Promise<Map<string, Confirmation>> {
  const outcome = new Map<string, Confirmation>();
  const groups = new Map<string, Claimed[]>();
  for (const event of events) {
    const key = `${event.organization_id} ${event.shop}`;
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  for (const group of groups.values()) {
    const { organization_id: organizationId, shop } = group[0]!;
    const gids = new Map(group.map((e) => [e.id, resourceGidOf(e.topic, e.payload)]));
    for (const e of group) if (!gids.get(e.id)) outcome.set(e.id, "unknown");
    const asked = group.filter((e) => gids.get(e.id));
    if (!asked.length) continue;
    const token = await shopTokenOf(organizationId, shop);
    if (!token) {
      for (const e of asked) outcome.set(e.id, "unconfirmed");
      continue;
    }
    try {
      const known = await withRetry(() => shopify().knownNodes(shop, token, [...new Set(asked.map((e) => gids.get(e.id)!))]));
      for (const e of asked) outcome.set(e.id, known.has(gids.get(e.id)!) ? "confirmed" : "unknown");
    } catch (error) {
      if (!refusedForGood(error)) throw error;
      for (const e of asked) outcome.set(e.id, "unconfirmed");
    }
  }
  return outcome;
}

/**
 * An app/uninstalled is acted on only when its body is the shop's own (`myshopify_domain`) and the
 * shop no longer takes the token: a replayed removal of a shop that still has Jumbe changes nothing.
 */
export async function uninstallConfirmed(event: Claimed): Promise<boolean> {
  if (bodyShopOf(event.payload) !== event.shop) return false;
  const token = await shopTokenOf(event.organization_id, event.shop);
  if (!token) return true;
  try {
    await withRetry(() => shopify().shopDomain(event.shop, token));
    return false;
  } catch (error) {
    // The token refused (or the shop gone): the removal is real. Any other refusal is not a removal.
    if (error instanceof ShopifyError && ["expired_token", "revoked", "not_found"].includes(error.kind)) return true;
    if (refusedForGood(error)) return false;
    throw error;
  }
}
