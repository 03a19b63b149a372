import { afterEach, describe, expect, it } from "vitest";
import { shopifyWebhookHmac } from "./index";
import { CLIENT_SECRET, SHOP, startShopify, type ShopifyHarness } from "./test-support";

let h: ShopifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CREATE = `mutation webhookSubscriptionCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic uri format }
    userErrors { field message }
  }
}`;
const LIST = `query { webhookSubscriptions(first: 50) { nodes { id topic uri } } }`;
const DELETE = `mutation webhookSubscriptionDelete($id: ID!) { webhookSubscriptionDelete(id: $id) { deletedWebhookSubscriptionId userErrors { field message } } }`;

describe("the GraphQL Admin API", () => {
  it("creates, lists and deletes webhook subscriptions, which then receive the store's events", async () => {
    h = await startShopify();
    const token = await h.connect();
    const gql = (query: string, variables: Json = {}) => h!.admin<Json>("/graphql.json", token, { body: { query, variables } });
    const created = await gql(CREATE, { topic: "ORDERS_CREATE", webhookSubscription: { uri: h.receiver.url, format: "JSON" } });
    expect(created.status).toBe(200);
    expect(created.json.data.webhookSubscriptionCreate).toMatchObject({
      webhookSubscription: { topic: "ORDERS_CREATE", uri: h.receiver.url, format: "JSON" },
      userErrors: [],
    });
    expect(created.json.extensions.cost.throttleStatus).toMatchObject({ maximumAvailable: 2000, restoreRate: 100 });

    const again = await gql(CREATE, { topic: "ORDERS_CREATE", webhookSubscription: { callbackUrl: h.receiver.url } });
    expect(again.json.data.webhookSubscriptionCreate).toMatchObject({
      webhookSubscription: null,
      userErrors: [{ message: "Address for this topic has already been taken" }],
    });
    expect(
      (await gql(CREATE, { topic: "ORDERS_EATEN", webhookSubscription: { uri: h.receiver.url } })).json.errors[0].extensions.code,
    ).toBe("INVALID_VARIABLE");

    h.sandbox.createOrder(SHOP, { phone: "0712 345 678" });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received[0]!.headers["x-shopify-hmac-sha256"]).toBe(shopifyWebhookHmac(h.receiver.received[0]!.body, CLIENT_SECRET));

    const listed = await gql(LIST);
    expect(listed.json.data.webhookSubscriptions.nodes.map((n: Json) => n.topic)).toEqual(["ORDERS_CREATE"]);
    const id = listed.json.data.webhookSubscriptions.nodes[0].id;
    expect((await gql(DELETE, { id })).json.data.webhookSubscriptionDelete.deletedWebhookSubscriptionId).toBe(id);
    expect((await gql(DELETE, { id })).json.data.webhookSubscriptionDelete.userErrors[0].message).toBe(
      "Webhook subscription does not exist",
    );
  });

  it("answers nodes for the shop's own orders, fulfilments and checkouts, and null for another shop's", async () => {
    h = await startShopify();
    const token = await h.connect();
    const other = "pwani-crafts.myshopify.com";
    const own = h.sandbox.createOrder(SHOP, { phone: "0712 345 678" }).order;
    const fulfilment = h.sandbox.createFulfillment(Number(own.id), { tracking_number: "KE1" }).fulfillment;
    const checkout = h.sandbox.createCheckout(SHOP, { phone: "0712 345 678" }).checkout;
    const theirs = h.sandbox.createOrder(other, { phone: "0712 345 679" }).order;
    const ids = [
      `gid://shopify/Order/${own.id}`,
      `gid://shopify/Fulfillment/${fulfilment.id}`,
      `gid://shopify/AbandonedCheckout/${checkout.id}`,
      `gid://shopify/Order/${theirs.id}`,
      "gid://shopify/Order/1",
    ];
    const NODES = "query confirm($ids: [ID!]!) { nodes(ids: $ids) { id } }";
    const answered = await h.admin<Json>("/graphql.json", token, { body: { query: NODES, variables: { ids } } });
    expect(answered.json.data.nodes.map((n: Json | null) => n?.id ?? null)).toEqual([...ids.slice(0, 3), null, null]);
    const bad = await h.admin<Json>("/graphql.json", token, { body: { query: NODES, variables: { ids: ["Order/1"] } } });
    expect(bad.json.errors[0].message).toBe("Invalid global id 'Order/1'");
  });

  it("keeps imported orders as the shop's own, numbered in turn, without sending a webhook", async () => {
    h = await startShopify();
    const token = await h.connect();
    await h.subscribe(token, ["orders/create"]);
    const imported = await h.control<Json>(`/shops/${SHOP}/orders/import`, {
      method: "POST",
      body: { orders: [{ customer: { first_name: "Achieng", phone: "+254710000001" } }, { phone: "0712 345 678" }] },
    });
    expect(imported.status).toBe(201);
    expect(imported.json.orders.map((o: Json) => o.name)).toEqual(["#1001", "#1002"]);
    expect(imported.json.orders[0]).toMatchObject({ customer: { first_name: "Achieng", phone: "+254710000001" }, currency: "KES" });
    expect(imported.json.webhooks).toEqual([]);
    await h.sandbox.flushWebhooks();
    expect(h.sandbox.webhooks()).toEqual([]);
    const ids = imported.json.orders.map((o: Json) => o.admin_graphql_api_id);
    const NODES = "query confirm($ids: [ID!]!) { nodes(ids: $ids) { id } }";
    const answered = await h.admin<Json>("/graphql.json", token, { body: { query: NODES, variables: { ids } } });
    expect(answered.json.data.nodes.map((n: Json | null) => n?.id ?? null)).toEqual(ids);
    expect(h.sandbox.createOrder(SHOP).order.name).toBe("#1003");
    const none = await h.control<Json>(`/shops/${SHOP}/orders/import`, { method: "POST", body: { orders: [] } });
    expect(none.status).toBe(400);
  });

  it("answers throttling in GraphQL's own way, and refuses what it does not serve", async () => {
    h = await startShopify();
    const token = await h.connect();
    h.sandbox.queueFault("429");
    const throttled = await h.admin<Json>("/graphql.json", token, { body: { query: LIST } });
    expect(throttled.status).toBe(200);
    expect(throttled.json.errors[0]).toMatchObject({ message: "Throttled", extensions: { code: "THROTTLED" } });
    expect(throttled.json.extensions.cost.throttleStatus.currentlyAvailable).toBe(0);
    expect(
      (await h.admin<Json>("/graphql.json", token, { body: { query: "{ products(first: 1) { nodes { id } } }" } })).json.errors,
    ).toHaveLength(1);
    expect((await h.admin<Json>("/graphql.json", token, { body: {} })).status).toBe(400);
    expect((await h.admin<Json>("/graphql.json", "shpat_wrong", { body: { query: LIST } })).status).toBe(401);
  });
});
