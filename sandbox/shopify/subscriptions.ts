import type { AccessRecord } from "../oauth-grants";
import type { ShopifyContext } from "./context";
import { TOPICS } from "./events";
import type { Shop, Subscription } from "./state";

export type SubscriptionCheck =
  | { ok: true }
  /** Field errors, as REST's 422 `errors` and GraphQL's `userErrors` say them. */
  | { ok: false; field: "topic" | "address"; message: string }
  | { ok: false; field: "scope"; message: string; scope: string };

/** Whether the grant holds a scope: a `write_` scope includes its `read_` one, as Shopify's do. */
export function hasScope(grant: AccessRecord, scope: string) {
  return grant.scopes.includes(scope) || (scope.startsWith("read_") && grant.scopes.includes(`write_${scope.slice(5)}`));
}

/** Shopify takes https addresses; the sandbox also takes http on loopback, where Jumbe listens in development. */
function addressProblem(address: unknown) {
  if (typeof address !== "string" || !URL.canParse(address)) return "is not a valid URL";
  const url = new URL(address);
  if (url.protocol === "https:") return undefined;
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)
    ? undefined
    : "protocol http:// is not supported";
}

/** Whether an app may subscribe this address to this topic on this shop. */
export function checkSubscription(
  ctx: ShopifyContext,
  grant: AccessRecord,
  shop: Shop,
  topic: string,
  address: unknown,
): SubscriptionCheck {
  const needed = TOPICS[topic];
  if (!needed)
    return {
      ok: false,
      field: "topic",
      message: `Invalid topic specified: ${topic || "(none)"}. Topics allowed: ${Object.keys(TOPICS).join(", ")}`,
    };
  const problem = addressProblem(address);
  if (problem) return { ok: false, field: "address", message: problem };
  if (ctx.state.subscriptionsOf(shop.domain, grant.clientId).some((s) => s.topic === topic && s.address === address))
    return { ok: false, field: "address", message: "for this topic has already been taken" };
  if (needed.length && !needed.some((scope) => hasScope(grant, scope)))
    return { ok: false, field: "scope", message: `requires the ${needed[0]} scope`, scope: needed[0]! };
  return { ok: true };
}

export function addSubscription(
  ctx: ShopifyContext,
  grant: AccessRecord,
  shop: Shop,
  topic: string,
  address: string,
  apiVersion: string,
): Subscription {
  const at = ctx.options.now();
  const subscription: Subscription = {
    id: ctx.state.newId(),
    shop: shop.domain,
    clientId: grant.clientId,
    topic,
    address,
    format: "json",
    apiVersion,
    createdAt: at,
    updatedAt: at,
  };
  ctx.state.subscriptions.set(subscription.id, subscription);
  ctx.state.changed();
  return subscription;
}

export function ownSubscriptions(ctx: ShopifyContext, shop: Shop, grant: AccessRecord) {
  return ctx.state.subscriptionsOf(shop.domain, grant.clientId);
}

export function removeSubscription(ctx: ShopifyContext, subscription: Subscription) {
  ctx.state.subscriptions.delete(subscription.id);
  ctx.state.changed();
}
