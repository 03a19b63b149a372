import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { saveContact } from "~/.server/domains/contacts/manage";
import { createCampaign, type CampaignInput } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { createProduct, removeProduct } from "~/.server/domains/shop";
import { createTemplate } from "~/.server/domains/templates/manage";
import { isRefusal } from "~/.server/infrastructure/refusal";
import type { TemplateInput } from "~/lib/templates";
import { metaSandboxForFile } from "../support/meta-harness";
import { until } from "../support/automation-harness";
import { createVerifiedUser } from "../support/accounts";
import { setBucketRate } from "../support/sending-kit";
import { approvedProductTemplate, productTemplate, shopProduct } from "../support/shop-kit";

// Campaigns that sell (issue 76, decision 146): catalog and multi-product templates made through the
// template form's rules and approved by the Meta sandbox, a campaign's products checked against the
// shop when saved and read again when sent, and Meta's button component on the wire.

const meta = metaSandboxForFile();

async function shop(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const actor = { organizationId: user.organization.id, userId: user.user.id };
  const connected = await meta.graph.connect(actor.organizationId, name);
  const product = (retailerId: string, label: string) => shopProduct(retailerId, label);
  const kikoi = await createProduct(actor, product("KIKOI-1", "Kikoi ya pwani"));
  const sandal = await createProduct(actor, product("SANDAL-9", "Sandals"));
  const kanga = await createProduct(actor, product("KANGA-3", "Kanga"));
  await until(
    () =>
      rawQuery<{ n: number }>(`select count(*)::int as n from products where organization_id = $1 and sync_state = 'synced'`, [
        actor.organizationId,
      ]),
    (rows) => rows[0]!.n === 3,
  );
  return { actor, ...connected, kikoi, sandal, kanga };
}

const template = productTemplate;
const approved = (actor: { organizationId: string; userId: string }, change: Partial<TemplateInput> = {}) =>
  approvedProductTemplate(meta, actor, change);

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "campaign")) return { code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

async function runCampaign(id: string) {
  await vi.waitFor(
    async () => {
      await feedCampaigns();
      await drainDispatcher();
      await drainJobs();
      const [row] = await rawQuery<{ status: string }>(`select status from campaigns where id = $1`, [id]);
      expect(row!.status).toBe("completed");
    },
    { timeout: 30_000, interval: 20 },
  );
}

const optedIn = { consent: { status: "opted_in" as const, source: "manual" as const } };

describe("catalog and multi-product templates", () => {
  it("are made with Meta's rules, refused as Meta refuses them, and approved by the sandbox", async () => {
    const { actor, wabaId } = await shop("Duka la Lamu");
    const utility = await createTemplate(actor, template({ category: "UTILITY" }), { submit: true });
    expect(utility).toMatchObject({ ok: false, problems: { buttons: expect.stringMatching(/Marketing/) } });
    const noHeader = await createTemplate(actor, template({ headerFormat: "NONE" }), { submit: true });
    expect(noHeader).toMatchObject({ ok: false, problems: { headerFormat: expect.stringMatching(/text header/) } });
    await approved(actor);
    await approved(actor, { name: "our_catalog", headerFormat: "NONE", headerText: undefined, buttons: [{ type: "CATALOG", text: "" }] });
    const atMeta = meta.sandbox.templates(wabaId);
    expect(atMeta.find((t) => t.name === "new_arrivals")?.components.at(-1)).toEqual({
      type: "BUTTONS",
      buttons: [{ type: "MPM", text: "View items" }],
    });
    expect(atMeta.find((t) => t.name === "our_catalog")?.status).toBe("APPROVED");
  });
});

describe("a campaign of a multi-product template", () => {
  it("checks its products when saved, sends Meta's MPM button with retailer ids, and leaves out products removed meanwhile", async () => {
    const t = await shop("Pwani Fashions");
    await approved(t.actor);
    await saveContact(t.actor, { name: "Amina Wekesa", phone: "0712 000 318" }, optedIn);
    await saveContact(t.actor, { name: "Baraka Otieno", phone: "0712 000 328" }, optedIn);
    const input = (products: NonNullable<CampaignInput["parameters"]["products"]>): CampaignInput => ({
      name: "Coast week",
      template: { name: "new_arrivals" },
      parameters: { body: [{ field: "first_name" }], products },
      audience: { everyone: true },
    });
    const sections = [
      { title: "Nguo", productIds: [t.kikoi.id, t.kanga.id] },
      { title: "Viatu", productIds: [t.sandal.id] },
    ];
    expect(await refusal(createCampaign(t.actor, input({ thumbnail: "", sections })))).toMatchObject({
      code: "invalid_parameters",
      field: "parameters",
    });
    expect(await refusal(createCampaign(t.actor, input({ thumbnail: t.kikoi.id, sections: [] })))).toMatchObject({ field: "parameters" });
    const untitled = sections.map((s) => ({ ...s, title: "" }));
    expect(await refusal(createCampaign(t.actor, input({ thumbnail: t.kikoi.id, sections: untitled })))).toMatchObject({
      message: expect.stringMatching(/title/),
    });
    const stranger = await shop("Another Duka");
    expect(
      await refusal(createCampaign(t.actor, input({ thumbnail: t.kikoi.id, sections: [{ title: "", productIds: [stranger.kikoi.id] }] }))),
    ).toMatchObject({ message: expect.stringMatching(/catalog/) });

    // The kanga leaves the shop after the campaign is saved (scheduled) and before it sends.
    const id = await createCampaign(t.actor, {
      ...input({ thumbnail: t.kikoi.id, sections }),
      scheduledFor: new Date(Date.now() + 3_600_000),
    });
    await removeProduct(t.actor, t.kanga.id);
    await drainJobs();
    await rawQuery(`update campaigns set scheduled_for = now() - interval '1 second' where id = $1`, [id]);
    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    const sent = meta.sandbox.messages({ phoneNumberId: t.phoneNumberId });
    expect(sent).toHaveLength(2);
    const components = (sent[0]!.body.template as { components: unknown[] }).components;
    expect(components).toContainEqual({
      type: "button",
      sub_type: "MPM",
      index: "0",
      parameters: [
        {
          type: "action",
          action: {
            thumbnail_product_retailer_id: "KIKOI-1",
            sections: [
              { title: "Nguo", product_items: [{ product_retailer_id: "KIKOI-1" }] },
              { title: "Viatu", product_items: [{ product_retailer_id: "SANDAL-9" }] },
            ],
          },
        },
      ],
    });
  });

  it("leaves every recipient out, uncharged, when none of its products is left", async () => {
    const t = await shop("Malindi Crafts");
    await approved(t.actor, { name: "our_catalog", headerFormat: "NONE", headerText: undefined, buttons: [{ type: "CATALOG", text: "" }] });
    await saveContact(t.actor, { name: "Chebet Kiprop", phone: "0712 000 338" }, optedIn);
    const id = await createCampaign(t.actor, {
      name: "Catalogue",
      template: { name: "our_catalog" },
      parameters: { body: [{ value: "friend" }], products: { thumbnail: t.sandal.id } },
      audience: { everyone: true },
      scheduledFor: new Date(Date.now() + 3_600_000),
    });
    await removeProduct(t.actor, t.sandal.id);
    await drainJobs();
    await rawQuery(`update campaigns set scheduled_for = now() - interval '1 second' where id = $1`, [id]);
    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    expect(meta.sandbox.messages({ phoneNumberId: t.phoneNumberId })).toEqual([]);
    const recipients = await rawQuery<{ state: string; reason: string }>(
      `select state, reason from campaign_recipients where campaign_id = $1`,
      [id],
    );
    expect(recipients).toEqual([{ state: "left_out", reason: "no_products" }]);
    const charged = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where campaign_id = $1`, [id]);
    expect(charged[0]!.n).toBe(0);
  });
});
