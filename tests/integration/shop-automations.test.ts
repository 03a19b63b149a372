import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { lockConversations } from "~/.server/domains/messaging";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createProduct, removeProduct } from "~/.server/domains/shop";
import { createRule, getRule, updateRule } from "~/.server/domains/automations/rules";
import { createFlow, getFlow, publishFlow, updateFlow } from "~/.server/domains/automations/flows/store";
import { saveStep } from "~/.server/domains/automations/flows/builder";
import { wakeSession } from "~/.server/domains/automations/flows/jobs";
import { isRefusal } from "~/.server/infrastructure/refusal";
import * as builder from "~/routes/app/automations/flow";
import * as ruleRoute from "~/routes/app/automations/rule";
import { metaSandboxForFile } from "../support/meta-harness";
import { automationHarness, until } from "../support/automation-harness";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createApiRule, getApiRule, updateApiRule } from "~/.server/adapters/api-v1/automations";
import { AutomationRuleCreate, AutomationRuleUpdate } from "~/.server/adapters/api-v1/automation-schemas";
import { ApiProblem } from "~/.server/adapters/api-v1/problem";

// Product messages sent by automations (issue 76, decision 143): a flow's `products` step and a
// keyword rule's "Send products", through the reply gate like their other replies; the products
// checked against the organisation's catalog when saved, read from it again when sent.
const meta = metaSandboxForFile();
const h = automationHarness(meta);

/** An organisation with its number connected to the sandbox, and its owner's cookie. */
async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const actor = { organizationId: user.organization.id, userId: user.user.id };
  const connected = await meta.graph.connect(actor.organizationId, name);
  return { ...actor, actor, ...connected, cookie: () => signedInCookie(user.email, user.password) };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;
type StepIn = Parameters<typeof saveStep>[2];

const product = (retailerId: string, name: string, price: number) => ({
  name,
  description: `${name} from Lamu`,
  price,
  retailerId,
  imageUrl: `https://duka.example.co.ke/${retailerId.toLowerCase()}.jpg`,
  availability: "in stock" as const,
});

/** A tenant whose two products are in the Meta sandbox's catalog (synced by the jobs). */
async function shop(name: string) {
  const t = await tenant(name);
  const kikoi = await createProduct(t.actor, product("KIKOI-1", "Kikoi ya pwani", 150_000));
  const sandal = await createProduct(t.actor, product("SANDAL-9", "Sandals", 32_050));
  await until(
    () =>
      rawQuery<{ n: number }>(`select count(*)::int as n from products where organization_id = $1 and sync_state = 'synced'`, [
        t.organizationId,
      ]),
    (rows) => rows[0]!.n === 2,
  );
  const [catalog] = await rawQuery<{ catalog_id: string }>(`select catalog_id from shop_catalogs where organization_id = $1`, [
    t.organizationId,
  ]);
  return { t, kikoi, sandal, catalogId: catalog!.catalog_id };
}

/** Sends everything queued, now (the engine spaces messages to one customer), and answers what Meta received. */
async function atMeta(t: Tenant) {
  for (let round = 0; round < 10; round++) {
    await rawQuery(`update messages set next_attempt_at = now() where organization_id = $1 and accepted_at is null and status = 'queued'`, [
      t.organizationId,
    ]);
    await drainDispatcher();
  }
  return meta.sandbox.messages({ phoneNumberId: t.phoneNumberId }).map((m) => m.body);
}

const stored = (organizationId: string) =>
  rawQuery<{ message_type: string; body: string; source: string; automation_run_id: string | null }>(
    `select message_type, body, source, automation_run_id from messages where organization_id = $1 and direction = 'outbound' order by seq`,
    [organizationId],
  );

/** A person holds the tenant's conversation (as an agent's reply makes it), under its lock as the house requires. */
async function hold(organizationId: string) {
  const [row] = await rawQuery<{ id: string }>(`select id from conversations where organization_id = $1`, [organizationId]);
  await db().transaction(async (tx) => {
    await lockConversations(tx, [row!.id]);
    await tx.execute(sql`update conversations set person_held_at = now() where id = ${row!.id}`);
  });
}

const refusedAt = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error)) return { status: error.status, field: error.field };
    throw error;
  }
  return null;
};

describe("a flow's products step", () => {
  it("sends a product list through the flow's path: stored, and at Meta with the catalog and the products", async () => {
    const { t, kikoi, sandal, catalogId } = await shop("Lamu Flow Crafts");
    const flow = await createFlow(t.actor, { name: "Duka" });
    await saveStep(t.actor, flow.id, { type: "message", text: "Karibu {{contact.name}}!" } as StepIn);
    await saveStep(t.actor, flow.id, {
      type: "products",
      kind: "product_list",
      productIds: [kikoi.id, sandal.id],
      header: "Mpya wiki hii",
      text: "Chagua unachopenda, {{contact.name}}",
    } as StepIn);
    await publishFlow(t.actor, flow.id);
    await createRule(t.actor, { name: "Duka", matchType: "exact", keywords: ["duka"], flowId: flow.id });

    await h.customerWrites(t, "254722500001", "duka");
    const sent = await stored(t.organizationId);
    expect(sent.map((s) => s.message_type)).toEqual(["text", "interactive"]);
    expect(sent[1]).toMatchObject({
      source: "automation",
      body: "Products: Kikoi ya pwani, Sandals",
      automation_run_id: expect.any(String),
    });
    const bodies = await atMeta(t);
    expect(bodies[1]!.interactive).toEqual({
      type: "product_list",
      header: { type: "text", text: "Mpya wiki hii" },
      body: { text: "Chagua unachopenda, Achieng Otieno" },
      action: {
        catalog_id: catalogId,
        sections: [{ title: "Products", product_items: [{ product_retailer_id: "KIKOI-1" }, { product_retailer_id: "SANDAL-9" }] }],
      },
    });
  });

  it("goes on without a product the catalog no longer holds, after a wait as well", async () => {
    const { t, kikoi, sandal, catalogId } = await shop("Lamu Wait Crafts");
    const flow = await createFlow(t.actor, {
      name: "Later",
      steps: [
        { id: "hi", type: "message", text: "Subiri kidogo." },
        { id: "pause", type: "wait", minutes: 5 },
        { id: "one", type: "products", kind: "product", productIds: [kikoi.id], text: "Hii hapa" },
        { id: "list", type: "products", kind: "product_list", productIds: [kikoi.id, sandal.id], header: "Bidhaa", text: "Chagua" },
        { id: "bye", type: "message", text: "Asante." },
      ],
    });
    await publishFlow(t.actor, flow.id);
    await createRule(t.actor, { name: "Later", matchType: "exact", keywords: ["baadaye"], flowId: flow.id });
    await h.customerWrites(t, "254722500002", "baadaye");
    const [session] = await rawQuery<{ id: string; step_id: string }>(`select id, step_id from flow_sessions where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(session!.step_id).toBe("pause");

    // The kikoi leaves the catalog meanwhile: the one-product message is not sent, the list keeps the sandals.
    await removeProduct(t.actor, kikoi.id);
    await drainJobs();
    await wakeSession({ sessionId: session!.id, stepId: "pause" });
    const sent = await stored(t.organizationId);
    expect(sent.map((s) => s.body)).toEqual(["Subiri kidogo.", "Products: Sandals", "Asante."]);
    const [, list] = await atMeta(t);
    expect(list!.interactive).toMatchObject({
      type: "product_list",
      action: { catalog_id: catalogId, sections: [{ product_items: [{ product_retailer_id: "SANDAL-9" }] }] },
    });
    const [ended] = await rawQuery<{ status: string }>(`select status from flow_sessions where id = $1`, [session!.id]);
    expect(ended!.status).toBe("completed");
  });

  it("sends nothing while a person holds the conversation", async () => {
    const { t, kikoi } = await shop("Lamu Held Crafts");
    const flow = await createFlow(t.actor, {
      name: "Held",
      steps: [
        { id: "pause", type: "wait", minutes: 5 },
        { id: "one", type: "products", kind: "product", productIds: [kikoi.id] },
      ],
    });
    await publishFlow(t.actor, flow.id);
    await createRule(t.actor, { name: "Held", matchType: "exact", keywords: ["shika"], flowId: flow.id });
    await h.customerWrites(t, "254722500003", "shika");
    await hold(t.organizationId);
    const [session] = await rawQuery<{ id: string }>(`select id from flow_sessions where organization_id = $1`, [t.organizationId]);
    await wakeSession({ sessionId: session!.id, stepId: "pause" });
    expect(await stored(t.organizationId)).toEqual([]);
    expect(await atMeta(t)).toEqual([]);
  });

  it("refuses another organisation's, an unknown and an unsynced product when saved, at the step's field", async () => {
    const { t, kikoi } = await shop("Lamu Builder Crafts");
    const other = await shop("Mombasa Other Crafts");
    const flow = await createFlow(t.actor, { name: "Checked" });
    const step = (productIds: string[], extra: Record<string, unknown> = {}) =>
      saveStep(t.actor, flow.id, {
        type: "products",
        kind: "product_list",
        productIds,
        header: "Bidhaa",
        text: "Chagua",
        ...extra,
      } as StepIn);
    expect(await refusedAt(step([other.kikoi.id]))).toEqual({ status: 400, field: "steps[0].productIds" });
    expect(await refusedAt(step(["6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f"]))).toEqual({ status: 400, field: "steps[0].productIds" });
    expect(await refusedAt(step(["not-a-product"]))).toEqual({ status: 400, field: "steps[0].productIds" });
    const fresh = await createProduct(t.actor, product("KANGA-3", "Kanga", 80_000));
    expect(await refusedAt(step([fresh.id]))).toEqual({ status: 400, field: "steps[0].productIds" });
    expect(await refusedAt(step([kikoi.id], { header: "" }))).toEqual({ status: 400, field: "steps[0].header" });
    expect(await refusedAt(step([kikoi.id], { kind: "product", productIds: [] }))).toEqual({ status: 400, field: "steps[0].productIds" });
    // Through the public API's path too (the whole list).
    expect(
      await refusedAt(updateFlow(t.actor, flow.id, { steps: [{ type: "products", kind: "product", productIds: [other.kikoi.id] }] })),
    ).toEqual({ status: 400, field: "steps[0].productIds" });
    expect((await getFlow(t.organizationId, flow.id)).steps).toEqual([]);
    // A saved step is not checked again when another is edited, though its product has left the catalog since.
    await step([kikoi.id]);
    await removeProduct(t.actor, kikoi.id);
    await drainJobs();
    await saveStep(t.actor, flow.id, { type: "message", text: "Asante." } as StepIn);
    expect((await getFlow(t.organizationId, flow.id)).steps.map((s) => s.type)).toEqual(["products", "message"]);
  });

  it("is built without JavaScript: the products ticked are posted one a box, a wrong one said at the field", async () => {
    const { t, kikoi, sandal } = await shop("Lamu Page Crafts");
    const other = await shop("Kilifi Page Crafts");
    const cookie = await t.cookie();
    const flow = await createFlow(t.actor, { name: "Page" });
    const path = `/automations/flows/${flow.id}`;
    const page = await appFetch(getRequest(`${path}?add=products`, { cookie, headers: { accept: "text/html" } }));
    const text = await page.text();
    expect(page.status).toBe(200);
    expect(text).toContain(`name="productIds" value="${kikoi.id}"`);
    expect(text).not.toContain(other.kikoi.id);
    const post = (fields: Record<string, string | string[]>) =>
      run(builder.action, formRequest(path, { intent: "save-step", type: "products", stepId: "", ...fields }, { cookie }), {
        params: { id: flow.id },
      });
    const refused = await post({ kind: "product_list", productIds: [kikoi.id, other.sandal.id], header: "Bidhaa", text: "Chagua" });
    expect(refused.status).toBe(400);
    expect(refused.data).toMatchObject({ stepForm: { errors: { productIds: [expect.stringMatching(/not in your Meta catalog/)] } } });
    const saved = await post({ kind: "product_list", productIds: [kikoi.id, sandal.id], header: "Bidhaa", text: "Chagua" });
    expect(saved.status).toBe(302);
    expect((await getFlow(t.organizationId, flow.id)).steps[0]).toMatchObject({
      type: "products",
      kind: "product_list",
      productIds: [kikoi.id, sandal.id],
    });
  });
});

describe("a keyword rule's Send products", () => {
  it("sends the catalogue and one product after its reply, at Meta with the catalog's products", async () => {
    const { t, kikoi, catalogId } = await shop("Lamu Rule Crafts");
    await createRule(t.actor, {
      name: "Catalogue",
      matchType: "exact",
      keywords: ["bei"],
      reply: "Bei zetu:",
      products: { kind: "catalog_message", productIds: [kikoi.id], header: "", body: "Angalia duka letu" },
    });
    await createRule(t.actor, {
      name: "Kikoi",
      matchType: "exact",
      keywords: ["kikoi"],
      products: { kind: "product", productIds: [kikoi.id], header: "", body: "" },
    });
    await h.customerWrites(t, "254722500010", "bei");
    await h.customerWrites(t, "254722500010", "kikoi");
    const sent = await stored(t.organizationId);
    expect(sent.map((s) => [s.message_type, s.body])).toEqual([
      ["text", "Bei zetu:"],
      ["interactive", "The catalog"],
      ["interactive", "Products: Kikoi ya pwani"],
    ]);
    const bodies = await atMeta(t);
    expect(bodies.map((b) => b.interactive ?? null)).toEqual([
      null,
      {
        type: "catalog_message",
        body: { text: "Angalia duka letu" },
        action: { name: "catalog_message", parameters: { thumbnail_product_retailer_id: "KIKOI-1" } },
      },
      { type: "product", action: { catalog_id: catalogId, product_retailer_id: "KIKOI-1" } },
    ]);
  });

  it("sends nothing while a person holds the conversation", async () => {
    const { t, kikoi } = await shop("Lamu Quiet Crafts");
    await createRule(t.actor, {
      name: "Kikoi",
      matchType: "exact",
      keywords: ["kikoi"],
      products: { kind: "product", productIds: [kikoi.id], header: "", body: "" },
    });
    await h.customerWrites(t, "254722500011", "habari");
    await hold(t.organizationId);
    await h.customerWrites(t, "254722500011", "kikoi");
    expect(await stored(t.organizationId)).toEqual([]);
    expect(await atMeta(t)).toEqual([]);
  });

  it("refuses another organisation's or an unsynced product at the field, on the form without JavaScript too", async () => {
    const { t, kikoi } = await shop("Lamu Form Crafts");
    const other = await shop("Malindi Form Crafts");
    const base = { name: "Products", matchType: "exact", keywords: ["bidhaa"] };
    const rule = (products: { kind: string; productIds: string[]; header: string; body: string }) =>
      createRule(t.actor, { ...base, products });
    expect(await refusedAt(rule({ kind: "product", productIds: [other.kikoi.id], header: "", body: "" }))).toEqual({
      status: 400,
      field: "productIds",
    });
    const fresh = await createProduct(t.actor, product("KANGA-3", "Kanga", 80_000));
    expect(await refusedAt(rule({ kind: "product", productIds: [fresh.id], header: "", body: "" }))).toEqual({
      status: 400,
      field: "productIds",
    });
    expect(await refusedAt(rule({ kind: "product_list", productIds: [kikoi.id], header: "", body: "Chagua" }))).toEqual({
      status: 400,
      field: "productHeader",
    });

    const cookie = await t.cookie();
    const form = await appFetch(getRequest("/automations/new", { cookie, headers: { accept: "text/html" } }));
    const text = await form.text();
    expect(text).toContain(`name="productIds" value="${kikoi.id}"`);
    const fields = { intent: "save", name: "Products", matchType: "exact", keywords: "bidhaa", cooldownMinutes: "0" };
    const refused = await run(
      ruleRoute.action,
      formRequest("/automations/new", { ...fields, productKind: "product", productIds: [other.kikoi.id] }, { cookie }),
    );
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.data)).toMatch(/not in your Meta catalog/);
    const saved = await run(
      ruleRoute.action,
      formRequest(
        "/automations/new",
        { ...fields, productKind: "product_list", productIds: [kikoi.id], productHeader: "Mpya", productBody: "Chagua" },
        { cookie },
      ),
    );
    expect(saved.status).toBe(302);
    const [row] = await rawQuery<{ id: string }>(`select id from automation_rules where organization_id = $1`, [t.organizationId]);
    expect((await getRule(t.organizationId, row!.id)).actions).toEqual([
      { type: "products", kind: "product_list", productIds: [kikoi.id], header: "Mpya", body: "Chagua" },
    ]);
  });
});

describe("a rule whose product left the catalog", () => {
  it("keeps its products through another change, and answers without them", async () => {
    const { t, kikoi, sandal } = await shop("Lamu Kept Crafts");
    const input = {
      name: "List",
      matchType: "exact",
      keywords: ["orodha"],
      reply: "Hizi hapa:",
      products: { kind: "product_list", productIds: [kikoi.id, sandal.id], header: "Bidhaa", body: "Chagua" },
    };
    const rule = await createRule(t.actor, input);
    await removeProduct(t.actor, kikoi.id);
    await removeProduct(t.actor, sandal.id);
    await drainJobs();
    // Its name changed: the products it had are kept, not checked again.
    await updateRule(t.actor, rule.id, { ...input, name: "List 2" });
    // A change to the products is checked: the kikoi is gone.
    expect(await refusedAt(updateRule(t.actor, rule.id, { ...input, products: { ...input.products, productIds: [kikoi.id] } }))).toEqual({
      status: 400,
      field: "productIds",
    });
    await h.customerWrites(t, "254722500012", "orodha");
    expect((await stored(t.organizationId)).map((s) => s.body)).toEqual(["Hizi hapa:"]);
  });

  it("is in the public API's rule shape: sendProducts added, read, kept through another change, refused at its field and removed", async () => {
    const { t, kikoi, sandal } = await shop("Lamu API Crafts");
    const other = await shop("Malindi API Crafts");
    const body = AutomationRuleCreate.parse({
      name: "Bidhaa",
      matchType: "exact",
      keywords: ["bidhaa"],
      actions: {
        reply: "Hizi hapa:",
        sendProducts: { kind: "product_list", productIds: [kikoi.id, sandal.id], header: "Bidhaa zetu", body: "Chagua" },
      },
    });
    const made = await createApiRule(t.organizationId, body);
    const sent = { kind: "product_list", productIds: [kikoi.id, sandal.id], header: "Bidhaa zetu", body: "Chagua" };
    expect(made.actions.sendProducts).toEqual(sent);
    expect((await getApiRule(t.organizationId, made.id)).actions.sendProducts).toEqual(sent);
    // Another change keeps them; a product of another organisation is refused at sendProducts' field.
    const renamed = await updateApiRule(t.organizationId, made.id, AutomationRuleUpdate.parse({ name: "Bidhaa 2" }));
    expect(renamed.actions.sendProducts).toEqual(sent);
    const foreign = AutomationRuleUpdate.parse({ actions: { sendProducts: { ...sent, kind: "product", productIds: [other.kikoi.id] } } });
    const refused = await updateApiRule(t.organizationId, made.id, foreign).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ status: 422, code: "invalid_automation", field: "actions.sendProducts.productIds" });
    // An unknown kind is refused by the shape.
    expect(AutomationRuleUpdate.safeParse({ actions: { sendProducts: { ...sent, kind: "carousel" } } }).success).toBe(false);
    await h.customerWrites(t, "254722500013", "bidhaa");
    expect((await atMeta(t)).some((b) => JSON.stringify(b).includes("product_list"))).toBe(true);
    const removed = await updateApiRule(t.organizationId, made.id, AutomationRuleUpdate.parse({ actions: { sendProducts: null } }));
    expect(removed.actions.sendProducts).toBeNull();
    expect((await getRule(t.organizationId, made.id)).actions.some((a) => a.type === "products")).toBe(false);
  });
});
