import type { Request, Response } from "express";
import type { AccessRecord } from "../oauth-grants";
import type { ShopifyContext } from "./context";
import type { Shop, Subscription } from "./state";
import { addSubscription, checkSubscription, ownSubscriptions, removeSubscription } from "./subscriptions";

type Json = Record<string, unknown>;

/** The operations the sandbox's GraphQL Admin API answers: its root fields. */
export const GRAPHQL_FIELDS = ["webhookSubscriptionCreate", "webhookSubscriptionDelete", "webhookSubscriptions", "shop", "nodes"] as const;
type Field = (typeof GRAPHQL_FIELDS)[number];

/** Shopify's cost-based throttle: a bucket of 2000 points restoring 100 a second; each call here costs 10. */
const THROTTLE = { maximumAvailable: 2000, restoreRate: 100, cost: 10 };

export const isGraphqlPath = (path: string) => path === "/graphql.json";

/** `ORDERS_CREATE` → `orders/create`, `APP_UNINSTALLED` → `app/uninstalled`. */
export const topicOfEnum = (value: string) => value.toLowerCase().replace("_", "/");
/** `orders/create` → `ORDERS_CREATE`. */
export const enumOfTopic = (topic: string) => topic.toUpperCase().replace("/", "_");

const gid = (kind: string, id: number) => `gid://shopify/${kind}/${id}`;

function cost(currentlyAvailable: number) {
  return {
    cost: {
      requestedQueryCost: THROTTLE.cost,
      actualQueryCost: THROTTLE.cost,
      throttleStatus: { maximumAvailable: THROTTLE.maximumAvailable, currentlyAvailable, restoreRate: THROTTLE.restoreRate },
    },
  };
}

function subscriptionNode(subscription: Subscription) {
  return {
    id: gid("WebhookSubscription", subscription.id),
    legacyResourceId: String(subscription.id),
    topic: enumOfTopic(subscription.topic),
    uri: subscription.address,
    // The older field the URI replaced; answered too, as Shopify does for versions that have both.
    callbackUrl: subscription.address,
    format: "JSON",
    apiVersion: { handle: subscription.apiVersion },
    createdAt: new Date(subscription.createdAt).toISOString(),
    updatedAt: new Date(subscription.updatedAt).toISOString(),
  };
}

/** The operation's one root field, named in the query's text (the sandbox reads arguments from `variables` only). */
function rootFieldOf(query: string): Field | undefined {
  const body = query.replace(/#[^\n]*/g, "");
  // `nodes` is a root field only as called (`nodes(ids: …)`); a connection's `nodes { … }` is not.
  return GRAPHQL_FIELDS.find((field) => new RegExp(field === "nodes" ? "\\bnodes\\s*\\(" : `\\b${field}\\b`).test(body));
}

const graphqlError = (message: string, code: string) => ({ message, extensions: { code } });

function createSubscription(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, version: string, variables: Json) {
  const topicValue = typeof variables.topic === "string" ? variables.topic : "";
  const input = (variables.webhookSubscription ?? {}) as Json;
  const address = input.uri ?? input.callbackUrl;
  if (!/^[A-Z_]+$/.test(topicValue))
    return {
      errors: [
        graphqlError(`Variable $topic of type WebhookSubscriptionTopic! was provided invalid value: ${topicValue}`, "INVALID_VARIABLE"),
      ],
    };
  if (input.format !== undefined && input.format !== "JSON")
    return { errors: [graphqlError("The sandbox sends JSON webhooks only.", "INVALID_VARIABLE")] };
  const topic = topicOfEnum(topicValue);
  const check = checkSubscription(ctx, grant, shop, topic, address);
  if (!check.ok && check.field === "topic")
    return {
      errors: [
        graphqlError(`Variable $topic of type WebhookSubscriptionTopic! was provided invalid value: ${topicValue}`, "INVALID_VARIABLE"),
      ],
    };
  if (!check.ok && check.field === "scope")
    return {
      errors: [
        graphqlError(
          `Access denied for webhookSubscriptionCreate field. Required access: \`${check.scope}\` access scope.`,
          "ACCESS_DENIED",
        ),
      ],
    };
  if (!check.ok)
    return {
      data: {
        webhookSubscriptionCreate: {
          webhookSubscription: null,
          userErrors: [{ field: ["webhookSubscription", "callbackUrl"], message: `Address ${check.message}` }],
        },
      },
    };
  const subscription = addSubscription(ctx, grant, shop, topic, String(address), version);
  return { data: { webhookSubscriptionCreate: { webhookSubscription: subscriptionNode(subscription), userErrors: [] } } };
}

function deleteSubscription(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, variables: Json) {
  const id = typeof variables.id === "string" ? Number(variables.id.replace("gid://shopify/WebhookSubscription/", "")) : NaN;
  const found = ownSubscriptions(ctx, shop, grant).find((s) => s.id === id);
  if (!found)
    return {
      data: {
        webhookSubscriptionDelete: {
          deletedWebhookSubscriptionId: null,
          userErrors: [{ field: ["id"], message: "Webhook subscription does not exist" }],
        },
      },
    };
  removeSubscription(ctx, found);
  return { data: { webhookSubscriptionDelete: { deletedWebhookSubscriptionId: gid("WebhookSubscription", found.id), userErrors: [] } } };
}

function listSubscriptions(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, variables: Json) {
  const first = Math.min(250, Math.max(1, Number(variables.first ?? 50) || 50));
  const nodes = ownSubscriptions(ctx, shop, grant).slice(0, first).map(subscriptionNode);
  return {
    data: { webhookSubscriptions: { nodes, edges: nodes.map((node) => ({ node })), pageInfo: { hasNextPage: false, endCursor: null } } },
  };
}

const NODE_ID = /^gid:\/\/shopify\/(Order|Fulfillment|AbandonedCheckout)\/(\d{1,20})$/;

/**
 * `nodes(ids:)`: each id the shop's own order, fulfilment or abandoned checkout answered as its node,
 * any other (another shop's, or none) null, as Shopify does; an id that is not a global id is an
 * error. Orders and what hangs on them need `read_orders`.
 */
function nodesOf(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, variables: Json) {
  const ids = Array.isArray(variables.ids) ? variables.ids : [];
  if (ids.length > 250) return { errors: [graphqlError("The ids argument may hold at most 250 ids.", "MAX_INPUT_SIZE_EXCEEDED")] };
  const bad = ids.find((id) => typeof id !== "string" || !/^gid:\/\/shopify\/\w+\/\d+$/.test(id));
  if (bad !== undefined) return { errors: [graphqlError(`Invalid global id '${String(bad)}'`, "argumentLiteralsIncompatible")] };
  if (!grant.scopes.includes("read_orders"))
    return { errors: [graphqlError("Access denied for nodes field. Required access: `read_orders` access scope.", "ACCESS_DENIED")] };
  const nodes = (ids as string[]).map((id) => {
    const match = NODE_ID.exec(id);
    if (!match) return null;
    const kind = match[1]!;
    const number = Number(match[2]);
    const own =
      kind === "Order"
        ? ctx.state.orders.get(number)?.shop === shop.domain
        : kind === "Fulfillment"
          ? ctx.state.findFulfillment(number)?.order.shop === shop.domain
          : [...ctx.state.checkouts.values()].some((c) => c.id === number && c.shop === shop.domain);
    return own ? { __typename: kind, id } : null;
  });
  return { data: { nodes } };
}

/**
 * The GraphQL Admin API's part an app needs for webhooks (Shopify's current API: new public apps
 * may not use REST since April 2025): `webhookSubscriptionCreate`, `webhookSubscriptionDelete`,
 * `webhookSubscriptions` and `shop`, and `nodes` for the orders, fulfilments and abandoned checkouts
 * the shop's webhooks were about, one root field a request, arguments from `variables`. Answers
 * carry Shopify's `extensions.cost`; a throttled call is 200 with a `THROTTLED` error, as Shopify's is.
 */
export function graphqlAnswer(ctx: ShopifyContext, req: Request, res: Response) {
  const body = (req.body ?? {}) as Json;
  if (typeof body.query !== "string" || !body.query.trim())
    return void res.status(400).json({ errors: { query: "Required parameter missing or invalid" } });
  if (res.locals.throttled)
    return void res.json({
      errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }],
      extensions: cost(0),
    });
  const field = rootFieldOf(body.query);
  if (!field)
    return void res.json({
      errors: [
        graphqlError(
          "The sandbox answers webhookSubscriptionCreate, webhookSubscriptionDelete, webhookSubscriptions, shop and nodes only.",
          "undefinedField",
        ),
      ],
    });
  const variables = (body.variables && typeof body.variables === "object" ? body.variables : {}) as Json;
  const grant = res.locals.grant as AccessRecord;
  const shop = res.locals.shop as Shop;
  const version = String(req.params.version);
  const answer =
    field === "webhookSubscriptionCreate"
      ? createSubscription(ctx, grant, shop, version, variables)
      : field === "webhookSubscriptionDelete"
        ? deleteSubscription(ctx, grant, shop, variables)
        : field === "webhookSubscriptions"
          ? listSubscriptions(ctx, grant, shop, variables)
          : field === "nodes"
            ? nodesOf(ctx, grant, shop, variables)
            : {
                data: {
                  shop: {
                    id: gid("Shop", shop.id),
                    name: shop.name,
                    email: shop.email,
                    myshopifyDomain: shop.domain,
                    currencyCode: "KES",
                    ianaTimezone: "Africa/Nairobi",
                  },
                },
              };
  res.json({ ...answer, extensions: cost(THROTTLE.maximumAvailable - THROTTLE.cost) });
}
