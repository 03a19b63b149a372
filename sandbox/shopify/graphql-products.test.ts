import { afterEach, describe, expect, it } from "vitest";
import { SHOP, startShopify, type ShopifyHarness } from "./test-support";

// The shop's catalogue as an app reads it (decision 142): `products` pages with pageInfo/endCursor,
// read_products needed, `nodes` answers the shop's own products only; products/* webhooks.

let h: ShopifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PRODUCTS = `query page($first: Int!, $after: String) {
  products(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id title status featuredImage { url } variants(first: 100) { nodes { id sku price availableForSale } } }
  }
}`;

describe("products", () => {
  it("pages the shop's products with endCursor, and needs read_products", async () => {
    h = await startShopify();
    const token = await h.connect(SHOP, "read_orders,read_products");
    const seeded = await h.control<{ products: Json[] }>(`/shops/${SHOP}/products`, {
      body: { products: Array.from({ length: 5 }, (_, i) => ({ title: `Kikoi ${i + 1}`, sku: `KIK-${i + 1}`, price: 500 + i })) },
    });
    expect(seeded.status).toBe(201);
    const gql = (variables: Json, t = token) => h!.admin<Json>("/graphql.json", t, { body: { query: PRODUCTS, variables } });
    const first = (await gql({ first: 2 })).json.data.products;
    expect(first.nodes.map((n: Json) => n.title)).toEqual(["Kikoi 1", "Kikoi 2"]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    expect(first.nodes[0].variants.nodes[0]).toMatchObject({ sku: "KIK-1", price: "500.00", availableForSale: true });
    const second = (await gql({ first: 2, after: first.pageInfo.endCursor })).json.data.products;
    expect(second.nodes.map((n: Json) => n.title)).toEqual(["Kikoi 3", "Kikoi 4"]);
    const last = (await gql({ first: 2, after: second.pageInfo.endCursor })).json.data.products;
    expect(last.nodes.map((n: Json) => n.title)).toEqual(["Kikoi 5"]);
    expect(last.pageInfo).toMatchObject({ hasNextPage: false });
    expect((await gql({ first: 2, after: "not-a-cursor" })).json.errors[0].extensions.code).toBe("argumentLiteralsIncompatible");

    const ordersOnly = await h.connect("pwani-crafts.myshopify.com", "read_orders");
    const denied = await h.admin<Json>("/graphql.json", ordersOnly, {
      shop: "pwani-crafts.myshopify.com",
      body: { query: PRODUCTS, variables: { first: 2 } },
    });
    expect(denied.json.errors[0].extensions.code).toBe("ACCESS_DENIED");
  });

  it("answers nodes for the shop's own products only, and sends products/* webhooks", async () => {
    h = await startShopify();
    const token = await h.connect(SHOP, "read_products");
    await h.subscribe(token, ["products/update", "products/delete"]).catch(() => undefined);
    const [product] = h.sandbox.addProducts(SHOP, [{ title: "Kiondo", sku: "KIO-1", price: 1200 }]).products;
    const other = h.sandbox.addProducts("pwani-crafts.myshopify.com", [{ title: "Mkeka" }]).products[0]!;
    const ask = (ids: string[]) =>
      h!.admin<Json>("/graphql.json", token, {
        body: { query: `query q($ids: [ID!]!) { nodes(ids: $ids) { id ... on Product { title } } }`, variables: { ids } },
      });
    const answered = await ask([String(product!.admin_graphql_api_id), String(other.admin_graphql_api_id)]);
    expect(answered.json.data.nodes).toEqual([{ id: product!.admin_graphql_api_id, title: "Kiondo" }, null]);
    h.sandbox.changeProduct(Number(product!.id), { price: 1500 });
    h.sandbox.deleteProduct(Number(product!.id));
    expect((await ask([String(product!.admin_graphql_api_id)])).json.data.nodes).toEqual([null]);
  });
});
