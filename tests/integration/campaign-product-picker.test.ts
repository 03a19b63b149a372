import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { PICKER_SHOWN, PRODUCTS_MAX } from "~/.server/domains/shop";
import * as newCampaign from "~/routes/app/messaging/campaigns/new";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedProductTemplate } from "../support/shop-kit";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";

// Issue 76: a campaign's catalog or multi-product template at a shop of PRODUCTS_MAX products offers
// the products its values name and at most PICKER_SHOWN others, as the inbox's and the automations'
// pickers do; "Find a product" is a GET of the whole form that keeps the campaign's other fields, what
// was typed and ticked; a save reads only the ticked products, and shows nothing of another organisation.

const meta = metaSandboxForFile();
const PATH = "/messaging/campaigns/new";

async function fullShop(name: string, count: number) {
  const account = await createVerifiedUser({ businessName: name });
  const actor = { organizationId: account.organization.id, userId: account.user.id };
  const cookie = await signedInCookie(account.email, account.password);
  await rawQuery(
    `insert into products (organization_id, retailer_id, name, price_cents, meta_product_id, sync_state, synced_at)
     select $1, 'MTUMBA-' || lpad(i::text, 4, '0'), 'Mtumba ' || lpad(i::text, 4, '0'), 50000 + i, 'meta-mtumba-' || i, 'synced', now()
     from generate_series(1, $2::int) as i`,
    [actor.organizationId, count],
  );
  const products = await rawQuery<{ id: string; name: string }>(`select id, name from products where organization_id = $1 order by name`, [
    actor.organizationId,
  ]);
  return { actor, cookie, products };
}

type Listed = { products: { id: string; name: string }[]; total: number; query: string };
const names = (picker: Listed) => picker.products.map((p) => p.name);

describe("the campaign form's products at a full shop", () => {
  it("lists the chosen products and at most 50 others, found by a GET that keeps the form", async () => {
    const t = await fullShop("Gikomba Mitumba", PRODUCTS_MAX);
    await meta.graph.connect(t.actor.organizationId, "Gikomba Mitumba");
    await approvedProductTemplate(meta, t.actor);
    const other = await fullShop("Toi Market", 1);
    const foreign = other.products[0]!;
    const thumb = t.products[1_200]!;
    const ticked = t.products[1_700]!;
    expect(t.products).toHaveLength(PRODUCTS_MAX);

    // A new campaign with the template chosen: 50 of 2,000, none ticked.
    const fresh = await run(newCampaign.loader, getRequest(`${PATH}?template=new_arrivals%7Cen`, { cookie: t.cookie }));
    expect(fresh.status).toBe(200);
    expect(fresh.data.picker).toMatchObject({ total: PRODUCTS_MAX, query: "" });
    expect(fresh.data.picker.products).toHaveLength(PICKER_SHOWN);
    expect(fresh.data.searched).toBeNull();

    // Found by SKU, the chosen ones first (beyond the first 50), the campaign's other fields kept;
    // another organisation's id in the address shows nothing of it.
    const query = new URLSearchParams({
      name: "Mitumba week",
      template: "new_arrivals|en",
      p1_source: "=",
      p1_value: "Amina",
      phones: "0712 345 678",
      pr_thumb: thumb.id,
      s0_title: "Jackets",
      pq: "mtumba-0007",
    });
    query.append("s0_products", ticked.id);
    query.append("s0_products", foreign.id);
    const searched = await run(newCampaign.loader, getRequest(`${PATH}?${query}`, { cookie: t.cookie }));
    expect(searched.data.searched).toMatchObject({
      name: "Mitumba week",
      template: "new_arrivals|en",
      phones: "0712 345 678",
      body: [{ source: "=", value: "Amina" }],
      products: { thumbnail: thumb.id, sections: [{ title: "Jackets", productIds: [ticked.id, foreign.id] }] },
    });
    expect(names(searched.data.picker)).toEqual([thumb.name, ticked.name, "Mtumba 0007"]);
    expect(searched.data.picker.products.length).toBeLessThanOrEqual(PICKER_SHOWN + 1 + 2);
    expect(JSON.stringify(searched.data.picker)).not.toContain(foreign.id);

    // A post of the form (Show its placeholders) lists the same: its search and its ticks.
    const fields = {
      intent: "choose",
      name: "Mitumba week",
      template: "new_arrivals|en",
      pr_thumb: thumb.id,
      s0_title: "Jackets",
      s0_products: [ticked.id],
      pq: "Mtumba 19",
    };
    const chosen = await run(newCampaign.action, formRequest(PATH, fields, { cookie: t.cookie }));
    expect(chosen.status).toBe(200);
    const listed = chosen.data.picker as Listed;
    expect(listed.products.slice(0, 2).map((p) => p.id)).toEqual([thumb.id, ticked.id]);
    expect(listed.products).toHaveLength(2 + PICKER_SHOWN);
    expect(listed.total).toBe(2 + 100); // the chosen two, and Mtumba 1900 to 1999

    // Review reads the ticked products: another organisation's is refused at the field, ours pass.
    const review = { ...fields, intent: "review", p1_source: "=", p1_value: "Amina", phones: "0712 345 678" };
    const refused = await run(
      newCampaign.action,
      formRequest(PATH, { ...review, s0_products: [ticked.id, foreign.id] }, { cookie: t.cookie }),
    );
    expect(refused.status).toBe(422);
    expect(refused.data.result.error).toEqual({ parameters: [expect.stringMatching(/WhatsApp catalog/)] });
    expect(JSON.stringify(refused.data)).not.toContain(foreign.name);
    const reviewed = await run(newCampaign.action, formRequest(PATH, review, { cookie: t.cookie }));
    expect(reviewed.status).toBe(200);
    expect(reviewed.data.step).toBe("review");
    expect(reviewed.data.review.products.map((p: { name: string }) => p.name)).toEqual([thumb.name, ticked.name]);
  });
});
