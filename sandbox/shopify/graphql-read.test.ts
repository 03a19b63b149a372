import { afterEach, describe, expect, it } from "vitest";
import { shopifyWebhookHmac } from "./index";
import { parseGraphql } from "./graphql-parse";
import { CLIENT_SECRET, SHOP, startShopify, type ShopifyHarness } from "./test-support";

// Issue 73: the GraphQL Admin API read as GraphQL (literal arguments, aliases, several root fields,
// Shopify's error shapes), the version header on every answer, and the privacy topics sent to the
// app configuration's compliance address.

let h: ShopifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function connected(options: Parameters<typeof startShopify>[0] = {}) {
  h = await startShopify(options);
  const token = await h.connect();
  const gql = (query: string, variables: Json = {}, extra: Json = {}) =>
    h!.admin<Json>("/graphql.json", token, { body: { query, variables, ...extra } });
  return { token, gql };
}

describe("the sandbox's GraphQL reader", () => {
  it("reads literals, variables with defaults, aliases, fragments and directives", () => {
    const doc = parseGraphql(`query q($n: Int = 5, $skip: Boolean!) {
      a: orders(first: 10, query: "name:\\"#1001\\"") { nodes { ...O } }
      shop @skip(if: $skip) { name }
    }
    fragment O on Order { id ... on Order { name } }`);
    expect(doc.operations[0]).toMatchObject({
      type: "query",
      name: "q",
      variables: [
        { name: "n", type: "Int", defaultValue: { kind: "int", value: "5" } },
        { name: "skip", type: "Boolean!" },
      ],
    });
    expect(doc.operations[0]!.selections[0]).toMatchObject({
      alias: "a",
      name: "orders",
      args: { first: { kind: "int", value: "10" }, query: { kind: "string", value: 'name:"#1001"' } },
    });
    expect(doc.fragments.get("O")?.typeCondition).toBe("Order");
    expect(() => parseGraphql("{ shop { name }")).toThrow("Parse error on end of file at [1, 16]");
    expect(() => parseGraphql("{ shop { } }")).toThrow('Parse error on "}" (RCURLY) at [1, 10]');
  });
});

describe("the GraphQL Admin API as Shopify answers it", () => {
  it("takes literal arguments, aliases and several root fields in one query", async () => {
    const { gql } = await connected();
    h!.sandbox.createOrder(SHOP, { phone: "0712 345 678" });
    h!.sandbox.createOrder(SHOP, { phone: "0712 345 679" });
    const answer = await gql(`{
      latest: orders(first: 1) { nodes { id name } }
      shop { myshopifyDomain __typename }
      both: orders(first: 10) { edges { node { name } } pageInfo { hasNextPage } }
    }`);
    expect(answer.status).toBe(200);
    expect(answer.json.errors).toBeUndefined();
    expect(answer.json.data).toEqual({
      latest: { nodes: [{ id: expect.stringMatching(/^gid:\/\/shopify\/Order\/\d+$/), name: "#1002" }] },
      shop: { myshopifyDomain: SHOP, __typename: "Shop" },
      both: { edges: [{ node: { name: "#1002" } }, { node: { name: "#1001" } }], pageInfo: { hasNextPage: false } },
    });
    expect(answer.json.extensions.cost.requestedQueryCost).toBe(30);
    expect(answer.headers.get("x-shopify-api-version")).toBe("2025-10");
  });

  it("answers Shopify's errors with 200: a syntax error, an unknown field, a missing variable, an ambiguous operation", async () => {
    const { gql } = await connected();
    const syntax = await gql("{ shop { name }");
    expect(syntax.status).toBe(200);
    expect(syntax.json.errors[0]).toMatchObject({ message: expect.stringContaining("Parse error"), locations: [{ line: 1, column: 16 }] });
    const unknown = await gql("{ shop { name colour } }");
    expect(unknown.json.errors[0]).toMatchObject({
      message: "Field 'colour' doesn't exist on type 'Shop'",
      extensions: { code: "undefinedField", typeName: "Shop", fieldName: "colour" },
    });
    const root = await gql("{ customers(first: 1) { nodes { id } } }");
    expect(root.json.errors[0]).toMatchObject({
      message: "Field 'customers' doesn't exist on type 'QueryRoot'",
      extensions: { code: "undefinedField" },
    });
    expect(root.json.data).toBeUndefined();
    const missing = await gql("query q($ids: [ID!]!) { nodes(ids: $ids) { id } }");
    expect(missing.json.errors[0].extensions.code).toBe("INVALID_VARIABLE");
    const two = await gql("query a { shop { name } } query b { shop { email } }");
    expect(two.json.errors[0].message).toBe("An operation name is required when a document has more than one operation");
    const chosen = await gql("query a { shop { name } } query b { shop { email } }", {}, { operationName: "b" });
    expect(chosen.json.data).toEqual({ shop: { email: "owner@dukabora.co.ke" } });
  });

  it("says which version answered: a retired version is answered by the oldest supported one, an unreleased one is not found", async () => {
    const { token } = await connected();
    const ask = (version: string) =>
      fetch(`${h!.base}/shops/${SHOP}/admin/api/${version}/graphql.json`, {
        method: "POST",
        headers: { "X-Shopify-Access-Token": token, "Content-Type": "application/json" },
        body: JSON.stringify({ query: "{ shop { name } }" }),
      });
    expect((await ask("2025-04")).headers.get("x-shopify-api-version")).toBe("2025-04");
    const retired = await ask("2023-10");
    expect(retired.status).toBe(200);
    expect(retired.headers.get("x-shopify-api-version")).toBe("2025-01");
    expect((await ask("2031-01")).status).toBe(404);
    const refused = await fetch(`${h!.base}/shops/${SHOP}/admin/api/2025-10/shop.json`, { headers: { "X-Shopify-Access-Token": "nope" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-shopify-api-version")).toBe("2025-10");
  });
});

describe("the privacy topics", () => {
  it("are sent, signed, to the app configuration's compliance address, never subscribed per shop", async () => {
    const { gql } = await connected();
    const refused = await gql(
      `mutation s($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) { userErrors { message } } }`,
      { topic: "CUSTOMERS_REDACT", sub: { uri: h!.receiver.url } },
    );
    expect(refused.json.errors[0].extensions.code).toBe("INVALID_VARIABLE");
    // Without a compliance address in the app's configuration, there is nowhere to send them.
    expect((await h!.control("/shops/duka-bora.myshopify.com/redact", { body: {} })).status).toBe(409);
  });

  it("sends customers/data_request, customers/redact and shop/redact with the customer's orders", async () => {
    h = await startShopify({}, { complianceToReceiver: true });
    const { order } = h.sandbox.createOrder(SHOP, {
      customer: { first_name: "Achieng", phone: "0712 345 671", email: "achieng@example.co.ke" },
    });
    const asked = await h.control<Json>(`/shops/${SHOP}/customers/data_request`, { body: { customer: { phone: "0712 345 671" } } });
    expect(asked.status).toBe(200);
    await h.control(`/shops/${SHOP}/customers/redact`, { body: { customer: { email: "achieng@example.co.ke" } } });
    await h.control(`/shops/${SHOP}/redact`, { body: {} });
    expect((await h.control(`/shops/${SHOP}/redact`, { body: { delivery: "sideways" } })).status).toBe(400);
    await h.sandbox.flushWebhooks();
    const got = h.receiver.received.map((r) => ({
      topic: r.headers["x-shopify-topic"],
      shop: r.headers["x-shopify-shop-domain"],
      body: JSON.parse(r.body),
    }));
    const customer = (order.customer as Json).id;
    expect(got).toEqual([
      {
        topic: "customers/data_request",
        shop: SHOP,
        body: {
          shop_id: expect.any(Number),
          shop_domain: SHOP,
          orders_requested: [order.id],
          customer: { id: customer, email: "achieng@example.co.ke", phone: "0712 345 671" },
          data_request: { id: expect.any(Number) },
        },
      },
      {
        topic: "customers/redact",
        shop: SHOP,
        body: {
          shop_id: expect.any(Number),
          shop_domain: SHOP,
          customer: { id: customer, email: "achieng@example.co.ke", phone: "0712 345 671" },
          orders_to_redact: [order.id],
        },
      },
      { topic: "shop/redact", shop: SHOP, body: { shop_id: expect.any(Number), shop_domain: SHOP } },
    ]);
    for (const r of h.receiver.received) expect(r.headers["x-shopify-hmac-sha256"]).toBe(shopifyWebhookHmac(r.body, CLIENT_SECRET));
  });
});
