import type { Request, Response } from "express";
import type { AccessRecord } from "../oauth-grants";
import type { ShopifyContext } from "./context";
import { financialStatusOf, type Shop, type Subscription } from "./state";
import { emit, orderPayload } from "./events";
import { productNode } from "./products";
import { addSubscription, checkSubscription, hasScope, ownSubscriptions, removeSubscription } from "./subscriptions";
import { GraphqlSyntaxError, parseGraphql, skipped, valueOf, variableNamesIn, type Document, type Selection } from "./graphql-parse";

type Json = Record<string, unknown>;

/** The operations the sandbox's GraphQL Admin API answers: its root fields. */
export const GRAPHQL_FIELDS = [
  "webhookSubscriptionCreate",
  "webhookSubscriptionDelete",
  "webhookSubscriptions",
  "shop",
  "nodes",
  "orders",
  "orderMarkAsPaid",
  "products",
] as const;

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
    __typename: "WebhookSubscription",
    id: gid("WebhookSubscription", subscription.id),
    legacyResourceId: String(subscription.id),
    topic: enumOfTopic(subscription.topic),
    uri: subscription.address,
    // The older field the URI replaced; answered too, as Shopify does for versions that have both.
    callbackUrl: subscription.address,
    format: "JSON",
    apiVersion: { __typename: "ApiVersion", handle: subscription.apiVersion, displayName: subscription.apiVersion, supported: true },
    createdAt: new Date(subscription.createdAt).toISOString(),
    updatedAt: new Date(subscription.updatedAt).toISOString(),
  };
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
          userErrors: [{ __typename: "UserError", field: ["webhookSubscription", "callbackUrl"], message: `Address ${check.message}` }],
        },
      },
    };
  const subscription = addSubscription(ctx, grant, shop, topic, String(address), version);
  return {
    data: {
      webhookSubscriptionCreate: {
        __typename: "WebhookSubscriptionCreatePayload",
        webhookSubscription: subscriptionNode(subscription),
        userErrors: [],
      },
    },
  };
}

function deleteSubscription(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, variables: Json) {
  const id = typeof variables.id === "string" ? Number(variables.id.replace("gid://shopify/WebhookSubscription/", "")) : NaN;
  const found = ownSubscriptions(ctx, shop, grant).find((s) => s.id === id);
  if (!found)
    return {
      data: {
        webhookSubscriptionDelete: {
          __typename: "WebhookSubscriptionDeletePayload",
          deletedWebhookSubscriptionId: null,
          userErrors: [{ __typename: "UserError", field: ["id"], message: "Webhook subscription does not exist" }],
        },
      },
    };
  removeSubscription(ctx, found);
  return {
    data: {
      webhookSubscriptionDelete: {
        __typename: "WebhookSubscriptionDeletePayload",
        deletedWebhookSubscriptionId: gid("WebhookSubscription", found.id),
        userErrors: [],
      },
    },
  };
}

function listSubscriptions(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, variables: Json) {
  const first = Math.min(250, Math.max(1, Number(variables.first ?? 50) || 50));
  const nodes = ownSubscriptions(ctx, shop, grant).slice(0, first).map(subscriptionNode);
  return { data: { webhookSubscriptions: connection("WebhookSubscription", nodes) } };
}

const NODE_ID = /^gid:\/\/shopify\/(Order|Fulfillment|AbandonedCheckout|Product)\/(\d{1,20})$/;

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
  // Products need read_products; orders and what hangs on them (and any other id) read_orders.
  const kinds = (ids as string[]).map((id) => NODE_ID.exec(id)?.[1]);
  const needs = new Set(kinds.map((k) => (k === "Product" ? "read_products" : "read_orders")));
  if (!needs.size) needs.add("read_orders");
  const needed = [...needs].find((scope) => !hasScope(grant, scope));
  if (needed)
    return { errors: [graphqlError(`Access denied for nodes field. Required access: \`${needed}\` access scope.`, "ACCESS_DENIED")] };
  const nodes = (ids as string[]).map((id) => {
    const match = NODE_ID.exec(id);
    if (!match) return null;
    const kind = match[1]!;
    const number = Number(match[2]);
    if (kind === "Product") {
      const product = ctx.state.products.get(number);
      return product?.shop === shop.domain ? productNode(product) : null;
    }
    const own =
      kind === "Order"
        ? ctx.state.orders.get(number)?.shop === shop.domain
        : kind === "Fulfillment"
          ? ctx.state.findFulfillment(number)?.order.shop === shop.domain
          : [...ctx.state.checkouts.values()].some((c) => c.id === number && c.shop === shop.domain);
    if (!own) return null;
    const order = kind === "Order" ? ctx.state.orders.get(number) : undefined;
    return order ? { __typename: kind, id, displayFinancialStatus: financialStatusOf(order).toUpperCase() } : { __typename: kind, id };
  });
  return { data: { nodes } };
}

/** A connection as Shopify shapes one: nodes, edges with cursors, pageInfo. */
function connection(kind: string, nodes: Json[]) {
  const edges = nodes.map((node, i) => ({ __typename: `${kind}Edge`, node, cursor: Buffer.from(`cursor:${i + 1}`).toString("base64") }));
  return {
    __typename: `${kind}Connection`,
    nodes,
    edges,
    pageInfo: {
      __typename: "PageInfo",
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

function shopNode(shop: Shop & { currency?: string }) {
  return {
    __typename: "Shop",
    id: gid("Shop", shop.id),
    name: shop.name,
    email: shop.email,
    myshopifyDomain: shop.domain,
    currencyCode: shop.currency ?? "KES",
    ianaTimezone: "Africa/Nairobi",
  };
}

/** `orders(first:)`: the shop's latest orders (newest first), `read_orders` required. */
function ordersOf(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, args: Json) {
  if (!hasScope(grant, "read_orders"))
    return { errors: [graphqlError("Access denied for orders field. Required access: `read_orders` access scope.", "ACCESS_DENIED")] };
  const first = args.first;
  if (first === undefined || first === null)
    return { errors: [graphqlError("you must provide one of first or last", "argumentLiteralsIncompatible")] };
  if (typeof first !== "number" || !Number.isInteger(first) || first < 0 || first > 250)
    return { errors: [graphqlError("The first argument must be an integer from 0 to 250.", "argumentLiteralsIncompatible")] };
  const nodes = ctx.state
    .ordersOf(shop.domain)
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
    .slice(0, first)
    .map((order) => ({
      __typename: "Order",
      id: gid("Order", order.id),
      legacyResourceId: String(order.id),
      name: `#${order.number}`,
      email: order.email,
      phone: order.phone,
      createdAt: new Date(order.createdAt).toISOString(),
      updatedAt: new Date(order.updatedAt).toISOString(),
    }));
  return { data: { orders: connection("Order", nodes) } };
}

type Answer = { data?: Json; errors?: Json[] };

const cursorOf = (id: number) => Buffer.from(`product:${id}`).toString("base64");
const idOfCursor = (cursor: string) => {
  const match = /^product:(\d{1,20})$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  return match ? Number(match[1]) : null;
};

/**
 * `products(first:, after:)`: the shop's products in id order, at most 250 a page, `pageInfo` with
 * `hasNextPage` and `endCursor` to ask for the next; `read_products` required; a cursor that is not
 * one this API gave is an error, as Shopify's is.
 */
function productsOf(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, args: Json): Answer {
  if (!hasScope(grant, "read_products"))
    return { errors: [graphqlError("Access denied for products field. Required access: `read_products` access scope.", "ACCESS_DENIED")] };
  const first = args.first;
  if (typeof first !== "number" || !Number.isInteger(first) || first < 0 || first > 250)
    return { errors: [graphqlError("The first argument must be an integer from 0 to 250.", "argumentLiteralsIncompatible")] };
  const after = args.after === undefined || args.after === null ? null : idOfCursor(String(args.after));
  if (args.after !== undefined && args.after !== null && after === null)
    return { errors: [graphqlError(`Invalid cursor for current pagination sort.`, "argumentLiteralsIncompatible")] };
  const all = ctx.state.productsOf(shop.domain).filter((p) => after === null || p.id > after);
  const page = all.slice(0, first);
  const nodes = page.map(productNode);
  const edges = page.map((p, i) => ({ __typename: "ProductEdge", node: nodes[i], cursor: cursorOf(p.id) }));
  return {
    data: {
      products: {
        __typename: "ProductConnection",
        nodes,
        edges,
        pageInfo: {
          __typename: "PageInfo",
          hasNextPage: all.length > page.length,
          hasPreviousPage: after !== null,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
      },
    },
  };
}

const markPaidRefused = (field: string[], message: string): Answer => ({
  data: {
    orderMarkAsPaid: { __typename: "OrderMarkAsPaidPayload", order: null, userErrors: [{ __typename: "UserError", field, message }] },
  },
});

/**
 * `orderMarkAsPaid(input: { id })` as Shopify does it: write_orders needed (ACCESS_DENIED without); an
 * id that is not one of the shop's orders, or an order already paid, refused with userErrors; else a
 * sale for the outstanding amount is recorded, the order is PAID and `orders/paid` goes to the apps
 * subscribed to it.
 */
function markOrderPaid(ctx: ShopifyContext, grant: AccessRecord, shop: Shop, args: Json): Answer {
  if (!hasScope(grant, "write_orders"))
    return {
      errors: [graphqlError("Access denied for orderMarkAsPaid field. Required access: `write_orders` access scope.", "ACCESS_DENIED")],
    };
  const input = (args.input ?? {}) as Json;
  const match = typeof input.id === "string" ? /^gid:\/\/shopify\/Order\/(\d{1,20})$/.exec(input.id) : null;
  if (typeof input.id !== "string" || !/^gid:\/\/shopify\/\w+\/\d+$/.test(input.id))
    return { errors: [graphqlError(`Invalid global id '${String(input.id)}'`, "argumentLiteralsIncompatible")] };
  const order = match ? ctx.state.orders.get(Number(match[1])) : undefined;
  if (!order || order.shop !== shop.domain) return markPaidRefused(["input", "id"], "Order does not exist");
  if (financialStatusOf(order) === "paid") return markPaidRefused(["input", "id"], "Order cannot be marked as paid.");
  const at = ctx.options.now();
  const amount = order.lineItems.reduce((sum, item) => sum + Number(item.price) * item.quantity, 0).toFixed(2);
  order.financialStatus = "paid";
  order.transactions = [...(order.transactions ?? []), { kind: "sale", gateway: "manual", amount, createdAt: at }];
  order.updatedAt = at;
  ctx.state.changed();
  const payload = orderPayload(shop, order);
  emit(ctx, shop, "orders/paid", payload);
  emit(ctx, shop, "orders/updated", payload);
  return {
    data: {
      orderMarkAsPaid: {
        __typename: "OrderMarkAsPaidPayload",
        order: { __typename: "Order", id: input.id, name: `#${order.number}`, displayFinancialStatus: "PAID" },
        userErrors: [],
      },
    },
  };
}

const ROOTS: Record<
  "query" | "mutation",
  Record<string, (ctx: ShopifyContext, grant: AccessRecord, shop: Shop, version: string, args: Json) => Answer>
> = {
  query: {
    shop: (_ctx, _grant, shop) => ({ data: { shop: shopNode(shop) } }),
    webhookSubscriptions: (ctx, grant, shop, _version, args) => listSubscriptions(ctx, grant, shop, args),
    nodes: (ctx, grant, shop, _version, args) => nodesOf(ctx, grant, shop, args),
    orders: (ctx, grant, shop, _version, args) => ordersOf(ctx, grant, shop, args),
    products: (ctx, grant, shop, _version, args) => productsOf(ctx, grant, shop, args),
  },
  mutation: {
    webhookSubscriptionCreate: (ctx, grant, shop, version, args) => createSubscription(ctx, grant, shop, version, args),
    webhookSubscriptionDelete: (ctx, grant, shop, _version, args) => deleteSubscription(ctx, grant, shop, args),
    orderMarkAsPaid: (ctx, grant, shop, _version, args) => markOrderPaid(ctx, grant, shop, args),
  },
};
const ROOT_TYPE = { query: "QueryRoot", mutation: "Mutation" } as const;

/** The answer shaped by the client's selection: its aliases, only the fields asked for, `__typename`. */
function project(
  value: unknown,
  selections: Selection[],
  doc: Document,
  variables: Json,
  path: (string | number)[],
  errors: Json[],
): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((item, i) => project(item, selections, doc, variables, [...path, i], errors));
  if (typeof value !== "object") return value;
  const object = value as Json;
  const typeName = String(object.__typename ?? "Object");
  const out: Json = {};
  const walk = (list: Selection[]) => {
    for (const selection of list) {
      if (skipped(selection.directives, variables)) continue;
      if (selection.kind === "spread") {
        const fragment = doc.fragments.get(selection.name);
        if (!fragment) errors.push(graphqlError(`Fragment ${selection.name} was used, but not defined`, "useAndDefineFragment"));
        else if (fragment.typeCondition === typeName || !/^[A-Z]/.test(fragment.typeCondition) || fragment.typeCondition === "Node")
          walk(fragment.selections);
        continue;
      }
      if (selection.kind === "inline") {
        if (!selection.typeCondition || selection.typeCondition === typeName || selection.typeCondition === "Node")
          walk(selection.selections);
        continue;
      }
      const key = selection.alias ?? selection.name;
      if (selection.name === "__typename") {
        out[key] = typeName;
        continue;
      }
      if (!(selection.name in object) || selection.name === "__typename") {
        errors.push({
          message: `Field '${selection.name}' doesn't exist on type '${typeName}'`,
          locations: [{ line: selection.line, column: selection.column }],
          path: [...path, key],
          extensions: { code: "undefinedField", typeName, fieldName: selection.name },
        });
        continue;
      }
      const field = object[selection.name];
      out[key] = selection.selections ? project(field, selection.selections, doc, variables, [...path, key], errors) : field;
    }
  };
  walk(selections);
  return out;
}

/**
 * The GraphQL Admin API's part an app needs (Shopify's current API: new public apps may not use REST
 * since April 2025): `webhookSubscriptionCreate`, `webhookSubscriptionDelete`, `webhookSubscriptions`,
 * `shop`, `nodes` and `orders`. The query is read as GraphQL (graphql-parse.ts): arguments as
 * literals or variables, aliases, fragments, several root fields in one operation, the operation
 * chosen by `operationName`. Errors as Shopify gives them: 200 with `errors[].message` and
 * `extensions.code` (a syntax error, an unknown field, a missing variable); 400 only for a body
 * without a query. Answers carry Shopify's `extensions.cost`; a throttled call is 200 with a
 * `THROTTLED` error, as Shopify's is.
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
  let doc: Document;
  try {
    doc = parseGraphql(body.query);
  } catch (error) {
    if (!(error instanceof GraphqlSyntaxError)) throw error;
    return void res.json({ errors: [{ message: error.message, locations: [{ line: error.line, column: error.column }] }] });
  }
  const wanted = typeof body.operationName === "string" && body.operationName ? body.operationName : undefined;
  const operation = wanted ? doc.operations.find((o) => o.name === wanted) : doc.operations.length === 1 ? doc.operations[0] : undefined;
  if (!operation)
    return void res.json({
      errors: [
        wanted
          ? graphqlError(`No operation named "${wanted}"`, "operationNotFound")
          : graphqlError("An operation name is required when a document has more than one operation", "operationNameRequired"),
      ],
    });
  if (operation.type === "subscription")
    return void res.json({ errors: [graphqlError("Subscriptions are not supported by the Admin API", "subscriptionNotSupported")] });
  const given = (body.variables && typeof body.variables === "object" && !Array.isArray(body.variables) ? body.variables : {}) as Json;
  const variables: Json = {};
  for (const definition of operation.variables) {
    const value =
      definition.name in given ? given[definition.name] : definition.defaultValue ? valueOf(definition.defaultValue, {}) : undefined;
    if ((value === undefined || value === null) && definition.type.endsWith("!"))
      return void res.json({
        errors: [
          {
            message: `Variable $${definition.name} of type ${definition.type} was provided invalid value`,
            extensions: {
              code: "INVALID_VARIABLE",
              value: value ?? null,
              problems: [{ path: [], explanation: "Expected value to not be null" }],
            },
          },
        ],
      });
    variables[definition.name] = value ?? null;
  }
  const used = variableNamesIn(operation.selections, doc.fragments);
  const unused = operation.variables.find((v) => !used.has(v.name));
  if (unused)
    return void res.json({
      errors: [
        graphqlError(
          `Variable $${unused.name} is declared by ${operation.name ?? "anonymous " + operation.type} but not used`,
          "variableNotUsed",
        ),
      ],
    });
  const roots = ROOTS[operation.type];
  const fields = operation.selections.filter(
    (s): s is Extract<Selection, { kind: "field" }> => s.kind === "field" && !skipped(s.directives, variables),
  );
  const missing = fields.find((f) => f.name !== "__typename" && !roots[f.name]);
  if (missing)
    return void res.json({
      errors: [
        {
          message: `Field '${missing.name}' doesn't exist on type '${ROOT_TYPE[operation.type]}'`,
          locations: [{ line: missing.line, column: missing.column }],
          path: [operation.type, missing.name],
          extensions: { code: "undefinedField", typeName: ROOT_TYPE[operation.type], fieldName: missing.name },
        },
      ],
    });
  const grant = res.locals.grant as AccessRecord;
  const shop = res.locals.shop as Shop;
  const version = String(res.locals.apiVersion ?? req.params.version);
  const data: Json = {};
  const errors: Json[] = [];
  let answered = 0;
  for (const field of fields) {
    const key = field.alias ?? field.name;
    if (field.name === "__typename") {
      data[key] = ROOT_TYPE[operation.type];
      continue;
    }
    const args = Object.fromEntries(Object.entries(field.args).map(([name, value]) => [name, valueOf(value, variables)]));
    const answer = roots[field.name]!(ctx, grant, shop, version, args);
    if (answer.errors?.length) {
      errors.push(...answer.errors.map((e) => ({ ...e, path: [key] })));
      data[key] = null;
      continue;
    }
    answered++;
    const value = answer.data?.[field.name];
    data[key] = field.selections ? project(value, field.selections, doc, variables, [key], errors) : value;
  }
  const spent = THROTTLE.cost * Math.max(1, fields.length);
  const extensions = cost(THROTTLE.maximumAvailable - spent);
  extensions.cost.requestedQueryCost = spent;
  extensions.cost.actualQueryCost = spent;
  if (errors.length && !answered) return void res.json({ errors, extensions });
  res.json({ data, ...(errors.length ? { errors } : {}), extensions });
}
