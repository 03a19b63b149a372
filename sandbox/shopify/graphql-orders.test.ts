import { afterEach, describe, expect, it } from "vitest";
import { SHOP, startShopify, type ShopifyHarness } from "./test-support";

// orderMarkAsPaid as Shopify answers it (issue 76, decision 142): write_orders needed, an unknown or
// another shop's order and an order already paid refused with userErrors, a pending order marked once.

let h: ShopifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MARK = `mutation mark($input: OrderMarkAsPaidInput!) {
  orderMarkAsPaid(input: $input) { order { id displayFinancialStatus } userErrors { field message } }
}`;
const STATUS = `query status($ids: [ID!]!) { nodes(ids: $ids) { id ... on Order { displayFinancialStatus } } }`;

describe("orderMarkAsPaid", () => {
  it("marks a pending order paid once, then refuses it as Shopify does", async () => {
    h = await startShopify();
    const token = await h.connect(SHOP, "read_orders,write_orders");
    const gql = (query: string, variables: Json = {}) => h!.admin<Json>("/graphql.json", token, { body: { query, variables } });
    const pending = h.sandbox.createOrder(SHOP, { phone: "0712 345 678", financial_status: "pending" }).order as Json;
    expect(pending.financial_status).toBe("pending");
    const gid = `gid://shopify/Order/${pending.id}`;
    expect((await gql(STATUS, { ids: [gid] })).json.data.nodes).toEqual([{ id: gid, displayFinancialStatus: "PENDING" }]);

    const marked = await gql(MARK, { input: { id: gid } });
    expect(marked.json.data.orderMarkAsPaid).toEqual({ order: { id: gid, displayFinancialStatus: "PAID" }, userErrors: [] });
    expect((await gql(STATUS, { ids: [gid] })).json.data.nodes).toEqual([{ id: gid, displayFinancialStatus: "PAID" }]);

    const again = await gql(MARK, { input: { id: gid } });
    expect(again.json.data.orderMarkAsPaid).toEqual({
      order: null,
      userErrors: [{ field: ["input", "id"], message: "Order cannot be marked as paid." }],
    });
    const unknown = await gql(MARK, { input: { id: "gid://shopify/Order/99" } });
    expect(unknown.json.data.orderMarkAsPaid.userErrors[0].message).toBe("Order does not exist");
    expect((await gql(MARK, { input: { id: "not-a-gid" } })).json.errors[0].extensions.code).toBe("argumentLiteralsIncompatible");
    const order = h.sandbox.order(Number(pending.id))!;
    expect(order.transactions).toHaveLength(1);
    expect(order.transactions![0]).toMatchObject({ kind: "sale", amount: "2500.00" });
  });

  it("needs write_orders, and never marks another shop's order", async () => {
    h = await startShopify();
    const readOnly = await h.connect(SHOP, "read_orders");
    const pending = h.sandbox.createOrder(SHOP, { financial_status: "pending" }).order as Json;
    const gid = `gid://shopify/Order/${pending.id}`;
    const denied = await h.admin<Json>("/graphql.json", readOnly, { body: { query: MARK, variables: { input: { id: gid } } } });
    expect(denied.json.errors[0].extensions.code).toBe("ACCESS_DENIED");
    expect(denied.json.data).toBeUndefined();

    const other = "pwani-crafts.myshopify.com";
    const otherToken = await h.connect(other, "read_orders,write_orders");
    const foreign = await h.admin<Json>("/graphql.json", otherToken, {
      shop: other,
      body: { query: MARK, variables: { input: { id: gid } } },
    });
    expect(foreign.json.data.orderMarkAsPaid.userErrors[0].message).toBe("Order does not exist");
    expect(h.sandbox.order(Number(pending.id))!.financialStatus).toBe("pending");
  });
});
