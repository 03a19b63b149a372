import "@shopify/shopify-api/adapters/web-api";
import { setAbstractFetchFunc } from "@shopify/shopify-api/runtime";
import { ApiVersion, GraphqlQueryError, LogSeverity, shopifyApi, type Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_ID, CLIENT_SECRET, SHOP, startShopify, type ShopifyHarness } from "@jumbe/sandbox/shopify/test-support";
import { enumOfTopic, SHOPIFY_OPERATIONS, SHOPIFY_SCOPES, SHOPIFY_TOPICS } from "~/.server/infrastructure/clients/shopify";

// The Shopify sandbox driven by Shopify's own library, @shopify/shopify-api 13.1.0, for every call
// Jumbe makes: the OAuth code exchange (begin and callback, the signed state cookie), the GraphQL
// operations Jumbe sends (webhook subscription create, list, delete; nodes; shop), and the webhook
// signature of what the sandbox sends (shopify.webhooks.validate), privacy topics included.
//
// How the library is pointed at the sandbox: it always builds https://{shop}/... (the shop's own
// domain), and takes no base URL. Its public runtime entry (`@shopify/shopify-api/runtime`) lets an
// adapter set the fetch it uses (`setAbstractFetchFunc`, the hook its node, web-api and cf-worker
// adapters set); after loading the web-api adapter, this file sets a fetch that sends
// https://<shop>.myshopify.com/<path> to the sandbox's /shops/<shop>/<path> on loopback and is the
// platform's fetch otherwise. Nothing else about the library is changed.

let h: ShopifyHarness;
beforeAll(async () => {
  h = await startShopify({}, { complianceToReceiver: true });
  setAbstractFetchFunc((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.hostname.endsWith(".myshopify.com")) return fetch(input, init);
    return fetch(`${h.base}/shops/${url.hostname}${url.pathname}${url.search}`, init);
  });
});
afterAll(() => h.close());

const shopify = () =>
  shopifyApi({
    apiKey: CLIENT_ID,
    apiSecretKey: CLIENT_SECRET,
    hostName: "jumbe.test",
    hostScheme: "https",
    apiVersion: ApiVersion.October25,
    isEmbeddedApp: false,
    scopes: [...SHOPIFY_SCOPES],
    logger: { level: LogSeverity.Error },
  });

// Jumbe's own operations, the texts its client sends (app/.server/infrastructure/clients/shopify.ts).
const { SUBSCRIBE, LIST, NODES, SHOP: SHOP_QUERY, UNSUBSCRIBE, MARK_PAID, ORDER_STATUS, PRODUCTS, PRODUCT_NODES } = SHOPIFY_OPERATIONS;

/** The install as the library runs it: begin (a redirect and a signed state cookie), the merchant's consent, callback. */
async function install(api: ReturnType<typeof shopify>): Promise<Session> {
  const begun = (await api.auth.begin({
    shop: SHOP,
    callbackPath: "/integrations/shopify/callback",
    isOnline: false,
    rawRequest: new Request("https://jumbe.test/integrations/shopify/connect"),
  })) as Response;
  expect(begun.status).toBe(302);
  const authorize = new URL(begun.headers.get("location")!);
  expect(authorize.origin).toBe(`https://${SHOP}`);
  const consent = await h.postForm(`/shops/${SHOP}${authorize.pathname}`, {
    client_id: authorize.searchParams.get("client_id")!,
    redirect_uri: authorize.searchParams.get("redirect_uri")!,
    scope: authorize.searchParams.get("scope")!,
    state: authorize.searchParams.get("state")!,
    decision: "install",
  });
  expect(consent.status).toBe(303);
  const cookies = begun.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const { session } = await api.auth.callback({
    rawRequest: new Request(consent.headers.get("location")!, { headers: { cookie: cookies } }),
  });
  return session;
}

describe("Shopify through @shopify/shopify-api", () => {
  it("installs: the library checks the return's hmac and exchanges the code for an offline token", async () => {
    const session = await install(shopify());
    expect(session.shop).toBe(SHOP);
    expect(session.isOnline).toBe(false);
    expect(session.accessToken).toMatch(/^shpat_/);
    // The library asks for the fewest scopes: write_orders includes read_orders, as Shopify's scopes do.
    expect(session.scope).toBe("read_customers,write_orders,read_products");
  });

  it("answers every GraphQL operation Jumbe sends, with the version header, and Shopify's errors as the library surfaces them", async () => {
    const api = shopify();
    const client = new api.clients.Graphql({ session: await install(api) });
    const address = h.receiver.url;
    // Every topic Jumbe subscribes to, with the variables its client sends.
    for (const topic of SHOPIFY_TOPICS) {
      const created = await client.request(SUBSCRIBE, {
        variables: { topic: enumOfTopic(topic), webhookSubscription: { uri: address, format: "JSON" } },
      });
      expect(created.data?.webhookSubscriptionCreate).toEqual({
        webhookSubscription: {
          id: expect.stringMatching(/^gid:\/\/shopify\/WebhookSubscription\/\d+$/),
          topic: enumOfTopic(topic),
          uri: address,
          apiVersion: { handle: "2025-10" },
        },
        userErrors: [],
      });
      expect(created.headers?.["X-Shopify-Api-Version"]).toEqual(["2025-10"]);
    }
    const listed = await client.request(LIST, { variables: { first: 250 } });
    expect(listed.data?.webhookSubscriptions.nodes.map((n: { topic: string }) => n.topic)).toEqual(SHOPIFY_TOPICS.map(enumOfTopic));

    const { order } = h.sandbox.createOrder(SHOP, { customer: { first_name: "Achieng", phone: "0712 345 671" } });
    const nodes = await client.request(NODES, { variables: { ids: [`gid://shopify/Order/${order.id}`, "gid://shopify/Order/1"] } });
    expect(nodes.data?.nodes).toEqual([{ id: `gid://shopify/Order/${order.id}` }, null]);
    expect((await client.request(SHOP_QUERY)).data).toEqual({ shop: { myshopifyDomain: SHOP } });
    // A literal argument and a second root field, as any client may send them.
    const both = await client.request(`{ orders(first: 10) { nodes { name } } shop { name } }`);
    expect(both.data).toEqual({ orders: { nodes: [{ name: "#1001" }] }, shop: { name: "Duka Bora" } });

    // A query error is a 200 with errors: the library throws its GraphqlQueryError with Shopify's body.
    const refused = await client.request(`{ shop { colour } }`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GraphqlQueryError);
    expect((refused as GraphqlQueryError).body?.errors).toMatchObject({
      graphQLErrors: [{ message: "Field 'colour' doesn't exist on type 'Shop'", extensions: { code: "undefinedField" } }],
    });

    const id = listed.data?.webhookSubscriptions.nodes[0].id;
    const deleted = await client.request(UNSUBSCRIBE, { variables: { id } });
    expect(deleted.data?.webhookSubscriptionDelete).toEqual({ deletedWebhookSubscriptionId: id, userErrors: [] });
  });

  it("answers Jumbe's order payment and product operations (decision 142) as the library reads them", async () => {
    const api = shopify();
    const client = new api.clients.Graphql({ session: await install(api) });
    const { order } = h.sandbox.createOrder(SHOP, { phone: "0712 345 671", financial_status: "pending" });
    const gid = `gid://shopify/Order/${order.id}`;
    expect((await client.request(ORDER_STATUS, { variables: { ids: [gid] } })).data?.nodes).toEqual([
      { id: gid, displayFinancialStatus: "PENDING" },
    ]);
    const marked = await client.request(MARK_PAID, { variables: { input: { id: gid } } });
    expect(marked.data?.orderMarkAsPaid).toEqual({ order: { id: gid, displayFinancialStatus: "PAID" }, userErrors: [] });
    const again = await client.request(MARK_PAID, { variables: { input: { id: gid } } });
    expect(again.data?.orderMarkAsPaid.userErrors).toEqual([{ field: ["input", "id"], message: "Order cannot be marked as paid." }]);

    const [product] = h.sandbox.addProducts(SHOP, [{ title: "Kiondo", sku: "KIO-1", price: 1200 }, { title: "Mkeka" }]).products;
    const first = await client.request(PRODUCTS, { variables: { first: 1, after: null } });
    expect(first.data?.shop).toEqual({ currencyCode: "KES" });
    expect(first.data?.products.pageInfo.hasNextPage).toBe(true);
    expect(first.data?.products.nodes[0]).toMatchObject({
      title: "Kiondo",
      status: "ACTIVE",
      variants: { nodes: [{ sku: "KIO-1", price: "1200.00" }] },
    });
    const next = await client.request(PRODUCTS, { variables: { first: 1, after: first.data?.products.pageInfo.endCursor } });
    expect(next.data?.products.nodes.map((n: { title: string }) => n.title)).toEqual(["Mkeka"]);
    const byId = await client.request(PRODUCT_NODES, { variables: { ids: [String(product!.admin_graphql_api_id)] } });
    expect(byId.data?.nodes[0]).toMatchObject({ id: product!.admin_graphql_api_id, title: "Kiondo" });
  });

  it("validates the webhooks the sandbox sends, the privacy topics included", async () => {
    const api = shopify();
    const client = new api.clients.Graphql({ session: await install(api) });
    await client.request(SUBSCRIBE, {
      variables: { topic: "ORDERS_CREATE", webhookSubscription: { uri: h.receiver.url, format: "JSON" } },
    });
    const from = h.receiver.received.length;
    h.sandbox.createOrder(SHOP, { customer: { first_name: "Baraka", phone: "0712 345 672" } });
    h.sandbox.privacyRequest(SHOP, "customers/data_request", { customer: { phone: "0712 345 672" } });
    h.sandbox.privacyRequest(SHOP, "customers/redact", { customer: { phone: "0712 345 672" } });
    h.sandbox.privacyRequest(SHOP, "shop/redact");
    await h.sandbox.flushWebhooks();
    const received = h.receiver.received.slice(from);
    expect(received.map((r) => r.headers["x-shopify-topic"])).toEqual([
      "orders/create",
      "customers/data_request",
      "customers/redact",
      "shop/redact",
    ]);
    for (const r of received) {
      const rawRequest = new Request("https://jumbe.test/webhooks/shopify", {
        method: "POST",
        headers: Object.entries(r.headers).filter((e): e is [string, string] => typeof e[1] === "string"),
        body: r.body,
      });
      const check = await api.webhooks.validate({ rawBody: r.body, rawRequest });
      expect(check).toMatchObject({
        valid: true,
        domain: SHOP,
        apiVersion: "2025-10",
        topic: String(r.headers["x-shopify-topic"]).toUpperCase().replace("/", "_"),
      });
    }
    const forged = await api.webhooks.validate({
      rawBody: received[0]!.body.replace("Baraka", "Mallory"),
      rawRequest: new Request("https://jumbe.test/webhooks/shopify", {
        method: "POST",
        headers: Object.entries(received[0]!.headers).filter((e): e is [string, string] => typeof e[1] === "string"),
        body: received[0]!.body,
      }),
    });
    expect(forged).toMatchObject({ valid: false, reason: "invalid_hmac" });
  });
});
