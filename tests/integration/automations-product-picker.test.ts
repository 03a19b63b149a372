import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { PRODUCTS_MAX } from "~/.server/domains/shop/products";
import { PICKER_SHOWN } from "~/.server/domains/shop";
import { createFlow } from "~/.server/domains/automations/flows/store";
import * as builder from "~/routes/app/automations/flow";
import * as ruleRoute from "~/routes/app/automations/rule";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";

// Issue 76: the automations' "Send products" fields (a keyword rule's, a flow's products step) at a
// shop of PRODUCTS_MAX products list the ticked products and at most PICKER_SHOWN others, as the
// inbox's picker does; "Find a product" is a GET of the whole form that keeps what was typed and
// ticked, and shows nothing of another organisation.

async function shopOf(name: string, count: number) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  await rawQuery(
    `insert into products (organization_id, retailer_id, name, price_cents, meta_product_id, sync_state, synced_at)
     select $1, 'MTUMBA-' || lpad(i::text, 4, '0'), 'Mtumba ' || lpad(i::text, 4, '0'), 50000 + i, 'meta-mtumba-' || i, 'synced', now()
     from generate_series(1, $2::int) as i`,
    [account.organization.id, count],
  );
  const ids = await rawQuery<{ id: string; name: string }>(`select id, name from products where organization_id = $1 order by name`, [
    account.organization.id,
  ]);
  return { actor: { organizationId: account.organization.id, userId: account.user.id }, cookie, products: ids };
}

describe("the automations' product fields at a full shop", () => {
  it("list the ticked products and at most 50 others, found by a GET that keeps the form as typed", async () => {
    const t = await shopOf("Gikomba Wholesale", PRODUCTS_MAX);
    const other = await shopOf("Toi Market", 1);
    const foreign = other.products[0]!;
    const ticked = t.products[1_200]!;
    expect(t.products).toHaveLength(PRODUCTS_MAX);

    // A new rule: 50 of 2,000, none ticked.
    const fresh = await run(ruleRoute.loader, getRequest("/automations/new", { cookie: t.cookie }));
    expect(fresh.status).toBe(200);
    expect(fresh.data.choices.products).toMatchObject({ total: PRODUCTS_MAX, query: "", action: "/automations/new" });
    expect(fresh.data.choices.products.products).toHaveLength(PICKER_SHOWN);

    // Found by SKU, the ticked one first (beyond the first 50), the typed fields kept; another
    // organisation's id ticked in the address shows nothing of it.
    const query = new URLSearchParams({ name: "Bei ya mtumba", keywords: "bei", productKind: "product_list", pq: "mtumba-1999" });
    query.append("productIds", ticked.id);
    query.append("productIds", foreign.id);
    const searched = await run(ruleRoute.loader, getRequest(`/automations/new?${query}`, { cookie: t.cookie }));
    expect(searched.data.values).toMatchObject({ name: "Bei ya mtumba", keywords: "bei", productKind: "product_list", reply: "" });
    expect(searched.data.choices.products.products.map((p: { name: string }) => p.name)).toEqual([ticked.name, "Mtumba 1999"]);
    expect(JSON.stringify(searched.data)).not.toContain(other.actor.organizationId);

    // A flow's products step: the same, the step being edited kept through the search.
    const flow = await createFlow(t.actor, { name: "Duka" });
    const path = `/automations/flows/${flow.id}`;
    const step = await run(builder.loader, getRequest(`${path}?add=products`, { cookie: t.cookie }), { params: { id: flow.id } });
    expect(step.status).toBe(200);
    expect(step.data.products).toMatchObject({ total: PRODUCTS_MAX, keep: { add: "products" }, action: path });
    expect(step.data.products.products.length).toBeLessThanOrEqual(PICKER_SHOWN);
    const stepQuery = new URLSearchParams({ add: "products", type: "products", kind: "product", text: "Karibu", pq: "Mtumba 0007" });
    stepQuery.append("productIds", ticked.id);
    stepQuery.append("productIds", t.products[1_500]!.id);
    const stepSearched = await run(builder.loader, getRequest(`${path}?${stepQuery}`, { cookie: t.cookie }), { params: { id: flow.id } });
    expect(stepSearched.data.editing).toMatchObject({ type: "products", values: { kind: "product", text: "Karibu" } });
    const names = stepSearched.data.products.products.map((p: { name: string }) => p.name);
    expect(names).toEqual([ticked.name, t.products[1_500]!.name, "Mtumba 0007"]);
    expect(names.length).toBeLessThanOrEqual(PICKER_SHOWN + 2);
    // Other steps read no products.
    const message = await run(builder.loader, getRequest(`${path}?add=message`, { cookie: t.cookie }), { params: { id: flow.id } });
    expect(message.data.products).toBeNull();
  });
});
