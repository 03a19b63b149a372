import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { STORED_DETAILS } from "~/.server/domains/activity/stored-details";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { handleShopifyWebhook, SHOPIFY_WEBHOOK_PATH } from "~/.server/adapters/webhooks-in/shopify";
import { shopifyWebhookHmac } from "@jumbe/sandbox/shopify/index";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as callbackRoute from "~/routes/app/integrations/callback";
import * as shopifyPage from "~/routes/app/integrations/shopify";
import { startShopify, CLIENT_ID, CLIENT_SECRET, type ShopifyHarness } from "@jumbe/sandbox/shopify/test-support";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, approvedMediaTemplate, metaReceived } from "../support/sending-kit";

// Issue 45, the Shopify connector (decision 084): the install on a shop (hmac checked), the shop's
// webhooks to Jumbe's route (signature, dedupe on the event id, stored with their job), the business's
// mapping of events to approved templates, and the template reaching the Meta sandbox; abandoned
// checkouts after the delay, cancelled by completion; opt-outs; tenants apart; disconnecting.

registerJobHandlers();
registerConnectors();

let shopify: ShopifyHarness;
let app: Server;
let appOrigin = "";
const meta = metaSandboxForFile({ appUrl: () => appOrigin });

beforeAll(async () => {
  shopify = await startShopify({ webhookAttempts: 2 });
  app = createServer((req, res) => {
    if (req.url === SHOPIFY_WEBHOOK_PATH) return void handleShopifyWebhook(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await shopify.close();
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
});
beforeEach(() => {
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: appOrigin,
      GRAPH_API_BASE_URL: meta.graph.graphBase,
      GRAPH_API_TIMEOUT_MS: "3000",
      SHOPIFY_CLIENT_ID: CLIENT_ID,
      SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
      SHOPIFY_AUTH_URL: `${shopify.base}/shops/{shop}`,
      SHOPIFY_API_URL: `${shopify.base}/shops/{shop}`,
      SHOPIFY_TIMEOUT_MS: "3000",
    }),
  );
  shopify.sandbox.reset();
});

// Each test its own shop: the sandbox keeps one install per shop.
let shops = 0;
const newShop = () => `duka-${process.pid}-${++shops}.myshopify.com`;

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const organizationId = account.organization.id;
  const connected = await meta.graph.connect(organizationId, name);
  return { ...account, cookie, organizationId, ...connected };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const post = (t: Tenant, fields: Record<string, string | string[]>) =>
  run(integrationsPage.action, formRequest("/integrations", fields, { cookie: t.cookie }));
const mappingPage = (t: Tenant) => run(shopifyPage.loader, getRequest("/integrations/shopify", { cookie: t.cookie }));
const saveMapping = (t: Tenant, fields: Record<string, string | string[]>) =>
  run(shopifyPage.action, formRequest("/integrations/shopify", fields, { cookie: t.cookie }));

/** The connect form, Shopify's install page (Install app), and the callback with what it carries back. */
async function install(t: Tenant, shop: string, tamper?: (query: URLSearchParams) => void) {
  const started = await post(t, { intent: "connect", integration: "shopify", shop });
  expect(started.status, JSON.stringify(started.data)).toBe(302);
  const authorize = new URL(started.location!);
  expect(authorize.pathname).toBe(`/sandbox/shopify/shops/${shop}/admin/oauth/authorize`);
  const answered = await shopify.postForm(`/shops/${shop}/admin/oauth/authorize`, {
    client_id: authorize.searchParams.get("client_id")!,
    redirect_uri: authorize.searchParams.get("redirect_uri")!,
    scope: authorize.searchParams.get("scope")!,
    state: authorize.searchParams.get("state")!,
    decision: "install",
  });
  expect(answered.status).toBe(303);
  const back = new URL(answered.headers.get("location")!);
  expect(back.pathname).toBe("/integrations/shopify/callback");
  tamper?.(back.searchParams);
  return run(callbackRoute.loader, getRequest(`/integrations/shopify/callback?${back.searchParams}`, { cookie: t.cookie }), {
    params: { provider: "shopify" },
  });
}

async function connect(t: Tenant, shop = newShop()) {
  const done = await install(t, shop);
  expect(done.status, JSON.stringify(done.data)).toBe(302);
  return shop;
}

/** Lets the sandbox deliver its webhooks, then runs the jobs and the dispatcher. */
async function settle() {
  await shopify.sandbox.flushWebhooks();
  await drainJobs();
  await drainDispatcher();
}

const events = (organizationId: string) =>
  rawQuery<{
    topic: string;
    status: string;
    reason: string | null;
    phone: string | null;
    message_id: string | null;
    event_type: string | null;
  }>(`select topic, status, reason, phone, message_id, event_type from shopify_events where organization_id = $1 order by created_at, id`, [
    organizationId,
  ]);

async function orderTemplate(t: Tenant) {
  await approvedBodyTemplate(meta.graph, t, "order_received", "UTILITY", "Habari {{1}}, we got your order {{2}} of {{3}}. Asante!");
  const [row] = await rawQuery<{ id: string }>(`select id from message_templates where organization_id = $1 and name = 'order_received'`, [
    t.organizationId,
  ]);
  return row!.id;
}

const ORDER = {
  customer: { first_name: "Achieng", last_name: "Otieno", phone: "0712 345 671" },
  line_items: [{ title: "Kiondo basket", quantity: 2, price: "1250.00" }],
};

describe("installing Shopify on a shop", () => {
  it("asks for the shop, checks the hmac of the return, keeps an offline token and subscribes the webhooks", async () => {
    const t = await tenant("Duka Bora Traders");
    const refused = await post(t, { intent: "connect", integration: "shopify", shop: "not a shop!" });
    expect(refused.status).toBe(400);
    expect(refused.data.toast.message).toBe("Give your shop's Shopify address, such as duka-bora.myshopify.com.");

    const shop = newShop();
    // A return whose hmac is not Shopify's: refused in words (400), nothing stored.
    const forged = await install(t, shop, (q) => q.set("hmac", "0".repeat(64)));
    expect(forged.status).toBe(400);
    expect(String(forged.data)).toContain("without Shopify's signature (hmac)");
    // Another shop swapped into the return breaks the hmac too.
    const swapped = await install(t, shop, (q) => q.set("shop", "someone-else.myshopify.com"));
    expect(swapped.status).toBe(400);
    expect(await rawQuery(`select 1 from integration_connections where organization_id = $1`, [t.organizationId])).toHaveLength(0);

    await connect(t, shop);
    const [row] = await rawQuery<{ account_label: string; external_account_id: string; token_expires_at: unknown; status: string }>(
      `select account_label, external_account_id, token_expires_at, status from integration_connections where organization_id = $1 and provider = 'shopify'`,
      [t.organizationId],
    );
    expect(row).toMatchObject({ account_label: shop, external_account_id: shop, token_expires_at: null, status: "connected" });
    const listed = await shopify.control<{ shops: { domain: string; subscriptions: { topic: string; address: string }[] }[] }>("/shops");
    const subscribed = listed.json.shops.find((s) => s.domain === shop)!.subscriptions;
    expect(subscribed.map((s) => s.topic).sort()).toEqual(
      [
        "app/uninstalled",
        "checkouts/create",
        "checkouts/update",
        "fulfillments/create",
        "fulfillments/update",
        "orders/create",
        "products/create",
        "products/update",
        "products/delete",
      ].sort(),
    );
    expect(new Set(subscribed.map((s) => s.address))).toEqual(new Set([`${appOrigin}/webhooks/shopify`]));
  });

  it("survives a 429 from the Admin API while subscribing, and says so when the token is refused", async () => {
    const t = await tenant("Soko Safi");
    shopify.sandbox.queueFault("429", 1);
    await connect(t);
    const u = await tenant("Soko Safi Two");
    shopify.sandbox.queueFault("401", 3);
    const refused = await install(u, newShop());
    expect(refused.status).toBe(502);
    expect(await rawQuery(`select 1 from integration_connections where organization_id = $1`, [u.organizationId])).toHaveLength(0);
  });
});

describe("the webhook route", () => {
  async function deliver(body: string, headers: Record<string, string>) {
    const response = await fetch(`${appOrigin}/webhooks/shopify`, { method: "POST", headers, body });
    return { status: response.status, text: await response.text() };
  }
  const headersFor = (shop: string, body: string, eventId: string, secret = CLIENT_SECRET) => ({
    "Content-Type": "application/json",
    "X-Shopify-Topic": "orders/create",
    "X-Shopify-Hmac-Sha256": shopifyWebhookHmac(body, secret),
    "X-Shopify-Shop-Domain": shop,
    "X-Shopify-Event-Id": eventId,
  });

  it("refuses a bad signature (401) and malformed input (400), answers an unknown shop like any other, and stores an event once", async () => {
    const t = await tenant("Mama Mboga Online");
    const shop = await connect(t);
    const body = JSON.stringify({ id: 1, name: "#1001", total_price: "10.00", currency: "KES" });
    expect((await deliver(body, headersFor(shop, body, "evt-1", "wrong-secret"))).status).toBe(401);
    expect((await deliver(body, { ...headersFor(shop, body, "evt-1"), "X-Shopify-Hmac-Sha256": "" })).status).toBe(401);
    const notJson = "{not json";
    expect((await deliver(notJson, headersFor(shop, notJson, "evt-2"))).status).toBe(400);
    expect((await deliver(body, { ...headersFor(shop, body, "evt-3"), "X-Shopify-Shop-Domain": "evil.example.com" })).status).toBe(400);
    const unknown = await deliver(body, headersFor("nobody-here.myshopify.com", body, "evt-4"));
    const known = await deliver(body, headersFor(shop, body, "evt-5"));
    expect(unknown).toEqual(known);
    expect(known.status).toBe(200);
    // At least once: the same body again, with the same event id or a new one, is answered 200 and stored once.
    expect((await deliver(body, headersFor(shop, body, "evt-5"))).status).toBe(200);
    expect((await deliver(body, headersFor(shop, body, "evt-7"))).status).toBe(200);
    // A body that names another shop than the header (app/uninstalled's shop object) is refused.
    const removal = JSON.stringify({ id: 7, myshopify_domain: "someone-else.myshopify.com" });
    expect((await deliver(removal, { ...headersFor(shop, removal, "evt-8"), "X-Shopify-Topic": "app/uninstalled" })).status).toBe(400);
    const big = JSON.stringify({ pad: "x".repeat(1024 * 1024 + 10) });
    expect((await deliver(big, headersFor(shop, big, "evt-6"))).status).toBe(413);
    const stored = await rawQuery<{ topic: string; reference: string }>(
      `select topic, reference from shopify_events where organization_id = $1`,
      [t.organizationId],
    );
    expect(stored).toEqual([{ topic: "orders/create", reference: "#1001" }]);
    const [jobs] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from jobs, jsonb_array_elements_text(payload->'ids') as stored(id)
       where queue = 'shopify.events' and stored.id in (select id::text from shopify_events where organization_id = $1)`,
      [t.organizationId],
    );
    expect(jobs!.n).toBe(1);
  });

  it("deduplicates Shopify's duplicate delivery of an order: one message", async () => {
    const t = await tenant("Kikapu Crafts");
    const shop = await connect(t);
    const templateId = await orderTemplate(t);
    await saveMapping(t, { eventType: "order_created", enabled: "on", templateId });
    await shopify.control(`/shops/${shop}/orders`, { body: { ...ORDER, delivery: "duplicate" } });
    await settle();
    const list = await events(t.organizationId);
    expect(list.filter((e) => e.topic === "orders/create")).toHaveLength(1);
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(1);
  });
});

describe("an order's template", () => {
  it("reaches the customer in the Meta sandbox with the mapped variables, once even when the job runs again", async () => {
    const t = await tenant("Nyota Fashion House");
    const shop = await connect(t);
    const templateId = await orderTemplate(t);
    // Before a mapping: the event is stored and skipped, said on the page.
    await shopify.control(`/shops/${shop}/orders`, { body: ORDER });
    await settle();
    expect((await events(t.organizationId)).find((e) => e.topic === "orders/create")).toMatchObject({
      status: "skipped",
      reason: "no_mapping",
    });

    const saved = await saveMapping(t, {
      eventType: "order_created",
      enabled: "on",
      templateId,
      variable: ["customer_name", "order_number", "order_total"],
    });
    expect(saved.status).toBe(302);
    const created = await shopify.control<{ order: { name: string } }>(`/shops/${shop}/orders`, { body: ORDER });
    await settle();
    const sent = (await events(t.organizationId)).filter((e) => e.topic === "orders/create").at(-1)!;
    expect(sent).toMatchObject({ status: "sent", phone: "+254712345671" });
    const received = await metaReceived(meta.graph, t.phoneNumberId);
    expect(received).toHaveLength(1);
    expect(JSON.stringify(received[0])).toContain("254712345671");
    const [message] = await rawQuery<{ body: string; payload: { template: { components: { parameters: { text: string }[] }[] } } }>(
      `select body, payload from messages where id = $1`,
      [sent.message_id],
    );
    const texts = message!.payload.template.components.flatMap((c) => c.parameters.map((p) => p.text));
    expect(texts).toEqual(["Achieng Otieno", created.json.order.name, "KES 2,500.00"]);

    // The job again (a retry after a crash): nothing more is queued.
    await rawQuery(`update shopify_events set status = 'received' where message_id is null and organization_id = $1`, [t.organizationId]);
    const [eventRow] = await rawQuery<{ id: string }>(`select id from shopify_events where message_id = $1`, [sent.message_id]);
    const { processShopifyEvent } = await import("~/.server/domains/integrations/shopify/process");
    await processShopifyEvent(eventRow!.id);
    await drainDispatcher();
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(1);

    // The page lists the events with their outcome; the activity log has them too.
    const page = await mappingPage(t);
    expect(page.status).toBe(200);
    expect(page.data.events.map((e: { status: string }) => e.status)).toContain("sent");
    const activity = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Integration synced' order by id`,
      [t.organizationId],
    );
    const queued = `Shopify: ${created.json.order.name}: template message queued to +254712345671`;
    expect(activity.map((a) => a.details)).toContain(queued);
    // The log says the stored English again in its reader's language.
    expect(STORED_DETAILS.say(queued, "sw")).toBe(`Shopify: ${created.json.order.name}: ujumbe wa kiolezo umepangwa kwenda +254712345671`);
  });

  it("respects an opt-out and an order without a phone", async () => {
    const t = await tenant("Maua Florists");
    const shop = await connect(t);
    const templateId = await orderTemplate(t);
    await saveMapping(t, { eventType: "order_created", enabled: "on", templateId });
    await rawQuery(
      `insert into contacts (organization_id, name, phone, opt_in) values ($1, 'Achieng Otieno', '+254712345671', 'opted_out')`,
      [t.organizationId],
    );
    await shopify.control(`/shops/${shop}/orders`, { body: ORDER });
    await shopify.control(`/shops/${shop}/orders`, { body: { customer: { first_name: "Baraka", email: "baraka@example.co.ke" } } });
    await settle();
    const list = (await events(t.organizationId)).filter((e) => e.topic === "orders/create");
    expect(list.map((e) => [e.status, e.reason])).toEqual([
      ["skipped", "opted_out"],
      ["skipped", "no_phone"],
    ]);
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(0);
    // The log keeps both with their reasons, said again in French from the stored English.
    const logged = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Integration synced' and status = 'warning' order by id`,
      [t.organizationId],
    );
    expect(logged.map((a) => STORED_DETAILS.say(a.details, "fr")?.replace(/#\d+/, "#N"))).toEqual([
      "Shopify : #N : aucun message envoyé (le client s'est désinscrit)",
      expect.stringMatching(/^Shopify : .+ : aucun message envoyé \(aucun numéro mobile kényan dans la commande\)$/),
    ]);
  });

  it("refuses a template an event cannot fill, and says why an event already mapped to one was skipped (issue 74)", async () => {
    const t = await tenant("Kitenge Corner");
    const shop = await connect(t);
    await approvedMediaTemplate(meta.graph, t, "order_photo", { header: "IMAGE", body: "Asante {{1}}! Order {{2}} is in." });
    await approvedMediaTemplate(meta.graph, t, "order_track", {
      header: "IMAGE",
      body: "Order {{1}} is on its way.",
      buttons: [{ type: "URL", text: "Track", url: "https://duka.example/track/{{1}}", example: ["https://duka.example/track/1001"] }],
    });
    // The link-button template without its image header: what the page must refuse for its variable.
    const [photo, track] = await rawQuery<{ id: string }>(
      `select id from message_templates where organization_id = $1 and name in ('order_photo', 'order_track') order by name`,
      [t.organizationId],
    );
    await rawQuery(`update message_templates set components = components - 0 where id = $1`, [track!.id]);

    // Chosen on the page: refused in words, nothing saved; the page's list says it cannot be used.
    const refused = await saveMapping(t, { eventType: "order_created", enabled: "on", templateId: photo!.id });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.data)).toContain("This template starts with an image, video or document header");
    const link = await saveMapping(t, { eventType: "order_fulfilled", enabled: "on", templateId: track!.id });
    expect(link.status).toBe(422);
    expect(JSON.stringify(link.data)).toContain("This template has a link button with a variable");
    expect(await rawQuery(`select 1 from shopify_mappings where organization_id = $1`, [t.organizationId])).toHaveLength(0);
    const page = await mappingPage(t);
    expect(page.data.templates.map((x: { name: string; blocked: string | null }) => [x.name, x.blocked])).toEqual([
      ["order_photo", "header_media"],
      ["order_track", "button_link"],
    ]);

    // A mapping saved before this check (or a template changed since): the event is skipped with the reason in words.
    await rawQuery(
      `insert into shopify_mappings (organization_id, event_type, enabled, template_id, variables) values ($1, 'order_created', true, $2, '["customer_name","order_number"]')`,
      [t.organizationId, photo!.id],
    );
    await shopify.control(`/shops/${shop}/orders`, { body: ORDER });
    await settle();
    const [skipped] = (await events(t.organizationId)).filter((e) => e.topic === "orders/create");
    expect(skipped).toMatchObject({ status: "skipped", reason: "template_needs_header", message_id: null });
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(0);
    const shown = await mappingPage(t);
    const row = shown.data.events.find((e: { topic: string }) => e.topic === "orders/create");
    expect(shown.data.reasons[row.id]).toBe(
      "the template's header needs an image, a file or a value that a store event cannot give: choose a template without it",
    );
  });

  it("sends the fulfilment's template with its tracking link", async () => {
    const t = await tenant("Tuktuk Deliveries");
    const shop = await connect(t);
    await approvedBodyTemplate(meta.graph, t, "order_shipped", "UTILITY", "{{1}}, order {{2}} is on its way: {{3}}");
    const [tpl] = await rawQuery<{ id: string }>(`select id from message_templates where organization_id = $1 and name = 'order_shipped'`, [
      t.organizationId,
    ]);
    await saveMapping(t, { eventType: "order_fulfilled", enabled: "on", templateId: tpl!.id });
    const order = await shopify.control<{ order: { id: number } }>(`/shops/${shop}/orders`, {
      body: { shipping_address: { first_name: "Wanjiru", phone: "+254 110 123 457" } },
    });
    await shopify.control(`/orders/${order.json.order.id}/fulfillments`, { body: { tracking_number: "KE123" } });
    await settle();
    const sent = (await events(t.organizationId)).find((e) => e.topic === "fulfillments/create")!;
    expect(sent).toMatchObject({ status: "sent", phone: "+254110123457" });
    const [message] = await rawQuery<{ payload: { template: { components: { parameters: { text: string }[] }[] } } }>(
      `select payload from messages where id = $1`,
      [sent.message_id],
    );
    expect(message!.payload.template.components.flatMap((c) => c.parameters.map((p) => p.text))).toEqual([
      "Wanjiru",
      expect.stringMatching(/^#\d+$/),
      "https://track.example.co.ke/KE123",
    ]);
  });
});

describe("abandoned checkouts", () => {
  async function setUp(name: string) {
    const t = await tenant(name);
    const shop = await connect(t);
    await approvedBodyTemplate(meta.graph, t, "cart_waiting", "UTILITY", "{{1}}, your cart is waiting: {{2}}");
    const [tpl] = await rawQuery<{ id: string }>(`select id from message_templates where organization_id = $1 and name = 'cart_waiting'`, [
      t.organizationId,
    ]);
    await saveMapping(t, { eventType: "checkout_abandoned", enabled: "on", templateId: tpl!.id, delayMinutes: "30" });
    return { t, shop };
  }
  /** 30 minutes pass: the checkouts and their delayed jobs fall due. */
  async function delayPasses(organizationId: string) {
    await rawQuery(`update shopify_checkouts set due_at = now() - interval '1 second' where organization_id = $1`, [organizationId]);
    await rawQuery(
      `update jobs set run_at = now() - interval '1 second' where queue = 'shopify.abandoned-checkouts' and finished_at is null`,
    );
  }

  it("sends the recovery link after the delay, not before", async () => {
    const { t, shop } = await setUp("Jikoni Supplies");
    await shopify.control(`/shops/${shop}/checkouts`, { body: { customer: { first_name: "Kamau", phone: "0722 000 111" } } });
    await settle();
    expect((await events(t.organizationId))[0]).toMatchObject({ status: "waiting", topic: "checkouts/create" });
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(0);
    await delayPasses(t.organizationId);
    await drainJobs();
    await drainDispatcher();
    const sent = (await events(t.organizationId))[0]!;
    expect(sent).toMatchObject({ status: "sent", phone: "+254722000111" });
    const [message] = await rawQuery<{ payload: { template: { components: { parameters: { text: string }[] }[] } } }>(
      `select payload from messages where id = $1`,
      [sent.message_id],
    );
    const texts = message!.payload.template.components.flatMap((c) => c.parameters.map((p) => p.text));
    expect(texts[0]).toBe("Kamau");
    expect(texts[1]).toMatch(new RegExp(`^https://${shop}/checkouts/[0-9a-f]+/recover$`));
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(1);
  });

  it("cancels it when the checkout is completed before the delay", async () => {
    const { t, shop } = await setUp("Chai Corner");
    const created = await shopify.control<{ checkout: { token: string } }>(`/shops/${shop}/checkouts`, {
      body: { customer: { first_name: "Njeri", phone: "0722 000 112" } },
    });
    await settle();
    await shopify.control(`/checkouts/${created.json.checkout.token}/update`, { body: { completed: true } });
    await settle();
    await delayPasses(t.organizationId);
    await drainJobs();
    await drainDispatcher();
    const list = await events(t.organizationId);
    expect(list.map((e) => [e.topic, e.status, e.reason])).toEqual([
      ["checkouts/create", "cancelled", "checkout_completed"],
      ["checkouts/update", "ignored", "checkout_completed"],
    ]);
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(0);
  });
});

describe("tenants and disconnecting", () => {
  it("keeps each organisation's shop, mappings and events to itself", async () => {
    const a = await tenant("Amani Electronics");
    const b = await tenant("Baraka Books");
    const shop = await connect(a);
    const templateId = await orderTemplate(a);
    // B has no shop: its page is 404, and A's template is not one B can map.
    expect((await mappingPage(b)).status).toBe(404);
    await connect(b);
    const foreign = await saveMapping(b, { eventType: "order_created", enabled: "on", templateId });
    expect(foreign.status).toBe(404);
    expect(await rawQuery(`select 1 from shopify_mappings where organization_id = $1`, [b.organizationId])).toHaveLength(0);
    await saveMapping(a, { eventType: "order_created", enabled: "on", templateId });
    await shopify.control(`/shops/${shop}/orders`, { body: ORDER });
    await settle();
    expect(await events(b.organizationId)).toHaveLength(0);
    expect((await mappingPage(b)).data.events).toHaveLength(0);
    expect((await events(a.organizationId)).map((e) => e.status)).toEqual(["sent"]);
  });

  it("disconnects: the token is cleared, the webhooks removed at the shop, later events not stored", async () => {
    const t = await tenant("Zawadi Gifts");
    const shop = await connect(t);
    const done = await post(t, { intent: "disconnect", integration: "shopify", confirm: "yes" });
    expect(done.status).toBe(302);
    const [row] = await rawQuery<{ status: string; access_token_sealed: string | null }>(
      `select status, access_token_sealed from integration_connections where organization_id = $1`,
      [t.organizationId],
    );
    expect(row).toEqual({ status: "disconnected", access_token_sealed: null });
    const listed = await shopify.control<{ shops: { domain: string; subscriptions: unknown[] }[] }>("/shops");
    expect(listed.json.shops.find((s) => s.domain === shop)!.subscriptions).toEqual([]);
    expect((await mappingPage(t)).status).toBe(404);
    // A coming-soon card cannot be connected.
    const comingSoon = await post(t, { intent: "connect", integration: "woocommerce" });
    expect(comingSoon.status).toBe(409);
  });

  it("disconnects when the merchant removes the app in Shopify", async () => {
    const t = await tenant("Pwani Fish Mongers");
    const shop = await connect(t);
    await shopify.control(`/shops/${shop}/uninstall`, { body: {} });
    await settle();
    const [row] = await rawQuery<{ status: string }>(`select status from integration_connections where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(row!.status).toBe("disconnected");
  });
});

// Issue 71: Shopify signs every shop's webhooks with the one app secret and does not sign the
// X-Shopify-Shop-Domain or X-Shopify-Event-Id headers, so a captured body can be posted again under
// another shop's name and a fresh event id; and an install's return can come back tampered.
describe("bound to the shop it was signed for (issue 71)", () => {
  async function replay(record: { body: string; hmac: string; topic: string }, shop: string) {
    const response = await fetch(`${appOrigin}/webhooks/shopify`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Shopify-Topic": record.topic,
        "X-Shopify-Hmac-Sha256": record.hmac,
        "X-Shopify-Shop-Domain": shop,
        "X-Shopify-Event-Id": crypto.randomUUID(),
      },
      body: record.body,
    });
    await response.text();
    return response.status;
  }
  const deliveredOf = (topic: string, shop: string) => shopify.sandbox.webhooks().filter((w) => w.topic === topic && w.shop === shop);

  it("a signed order of one shop posted as another shop with fresh event ids sends nothing; the shop's own replayed adds nothing", async () => {
    const attacker = await tenant("Hila Duka Bandia");
    const attackerShop = await connect(attacker);
    const demo = await tenant("Demo Duka Halisi");
    const demoShop = await connect(demo);
    await saveMapping(demo, { eventType: "order_created", enabled: "on", templateId: await orderTemplate(demo) });
    // The attacker's own shop sends a genuine, signed orders/create carrying the attacker's number.
    await shopify.control(`/shops/${attackerShop}/orders`, {
      body: { customer: { first_name: "Mshambulizi", phone: "0799 000 001" } },
    });
    await settle();
    const [captured] = deliveredOf("orders/create", attackerShop);
    expect(captured).toBeDefined();
    // Posted four times as the demo business's shop, each with a new X-Shopify-Event-Id.
    for (let i = 0; i < 4; i++) expect(await replay(captured!, demoShop)).toBe(200);
    await settle();
    expect(await metaReceived(meta.graph, demo.phoneNumberId)).toHaveLength(0);
    const stored = await events(demo.organizationId);
    expect(stored.length).toBeLessThanOrEqual(1);
    expect(stored.filter((e) => e.status === "sent" || e.message_id !== null || e.phone !== null)).toEqual([]);
    // The other shop's order is not kept in the demo business's events (its page shows no order of theirs).
    const [kept] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from shopify_events where organization_id = $1 and payload::text like '%Mshambulizi%'`,
      [demo.organizationId],
    );
    expect(kept!.n).toBe(0);

    // The demo shop's own order goes once; its body posted again with new event ids adds and sends nothing.
    await shopify.control(`/shops/${demoShop}/orders`, { body: ORDER });
    await settle();
    expect(await metaReceived(meta.graph, demo.phoneNumberId)).toHaveLength(1);
    const before = (await events(demo.organizationId)).length;
    const [own] = deliveredOf("orders/create", demoShop);
    for (let i = 0; i < 3; i++) expect(await replay(own!, demoShop)).toBe(200);
    await settle();
    expect(await events(demo.organizationId)).toHaveLength(before);
    expect(await metaReceived(meta.graph, demo.phoneNumberId)).toHaveLength(1);
  });

  it("another shop's fulfilment, checkout or removal of the app changes nothing in this shop's business", async () => {
    const attacker = await tenant("Hila Duka Pili");
    const attackerShop = await connect(attacker);
    const demo = await tenant("Demo Duka Pili");
    const demoShop = await connect(demo);
    await approvedBodyTemplate(meta.graph, demo, "order_shipped", "UTILITY", "{{1}}, order {{2}} is on its way: {{3}}");
    await approvedBodyTemplate(meta.graph, demo, "cart_waiting", "UTILITY", "{{1}}, your cart is waiting: {{2}}");
    const templates = await rawQuery<{ id: string; name: string }>(`select id, name from message_templates where organization_id = $1`, [
      demo.organizationId,
    ]);
    const idOf = (name: string) => templates.find((t) => t.name === name)!.id;
    await saveMapping(demo, { eventType: "order_fulfilled", enabled: "on", templateId: idOf("order_shipped") });
    await saveMapping(demo, { eventType: "checkout_abandoned", enabled: "on", templateId: idOf("cart_waiting"), delayMinutes: "30" });
    const order = await shopify.control<{ order: { id: number } }>(`/shops/${attackerShop}/orders`, {
      body: { shipping_address: { first_name: "Mshambulizi", phone: "0799 000 002" } },
    });
    await shopify.control(`/orders/${order.json.order.id}/fulfillments`, { body: { tracking_number: "KE999" } });
    await shopify.control(`/shops/${attackerShop}/checkouts`, { body: { customer: { first_name: "Mshambulizi", phone: "0799 000 003" } } });
    await shopify.control(`/shops/${attackerShop}/uninstall`, { body: {} });
    await settle();
    for (const topic of ["fulfillments/create", "checkouts/create", "app/uninstalled"]) {
      const [record] = deliveredOf(topic, attackerShop);
      expect(record, topic).toBeDefined();
      // The removal's body is the shop object, which names its shop: refused at once.
      expect(await replay(record!, demoShop), topic).toBe(topic === "app/uninstalled" ? 400 : 200);
    }
    await settle();
    await rawQuery(`update shopify_checkouts set due_at = now() - interval '1 second' where organization_id = $1`, [demo.organizationId]);
    await rawQuery(
      `update jobs set run_at = now() - interval '1 second' where queue = 'shopify.abandoned-checkouts' and finished_at is null`,
    );
    await drainJobs();
    await drainDispatcher();
    expect(await metaReceived(meta.graph, demo.phoneNumberId)).toHaveLength(0);
    const [connection] = await rawQuery<{ status: string }>(
      `select status from integration_connections where organization_id = $1 and provider = 'shopify'`,
      [demo.organizationId],
    );
    expect(connection!.status).toBe("connected");
  });

  it("a shop's old removal of the app, posted again once the shop is connected anew, leaves the new connection", async () => {
    const before = await tenant("Duka la Zamani");
    const shop = await connect(before);
    await shopify.control(`/shops/${shop}/uninstall`, { body: {} });
    await settle();
    const [removal] = deliveredOf("app/uninstalled", shop);
    const now = await tenant("Duka Jipya");
    await connect(now, shop);
    expect(await replay(removal!, shop)).toBe(200);
    await settle();
    const [connection] = await rawQuery<{ status: string }>(
      `select status from integration_connections where organization_id = $1 and provider = 'shopify'`,
      [now.organizationId],
    );
    expect(connection!.status).toBe("connected");
    expect((await events(now.organizationId)).map((e) => [e.topic, e.status, e.reason])).toEqual([
      ["app/uninstalled", "ignored", "not_confirmed"],
    ]);
  });

  it("a return whose shop was changed answers 400 in words and leaves the state for the genuine return", async () => {
    const t = await tenant("Duka la Kurudi");
    const shop = newShop();
    const started = await post(t, { intent: "connect", integration: "shopify", shop });
    const authorize = new URL(started.location!);
    const answered = await shopify.postForm(`/shops/${shop}/admin/oauth/authorize`, {
      client_id: authorize.searchParams.get("client_id")!,
      redirect_uri: authorize.searchParams.get("redirect_uri")!,
      scope: authorize.searchParams.get("scope")!,
      state: authorize.searchParams.get("state")!,
      decision: "install",
    });
    const genuine = new URL(answered.headers.get("location")!).searchParams;
    const callback = (params: URLSearchParams) =>
      run(callbackRoute.loader, getRequest(`/integrations/shopify/callback?${params}`, { cookie: t.cookie }), {
        params: { provider: "shopify" },
      });
    const tampered = new URLSearchParams(genuine);
    tampered.set("shop", "someone-else.myshopify.com");
    const refused = await callback(tampered);
    expect(refused.status).toBe(400);
    expect(String(refused.data)).toContain("start connecting again");
    expect(await rawQuery(`select 1 from integration_connections where organization_id = $1`, [t.organizationId])).toHaveLength(0);
    const done = await callback(genuine);
    expect(done.status, JSON.stringify(done.data)).toBe(302);
    const [row] = await rawQuery<{ external_account_id: string; status: string }>(
      `select external_account_id, status from integration_connections where organization_id = $1 and provider = 'shopify'`,
      [t.organizationId],
    );
    expect(row).toEqual({ external_account_id: shop, status: "connected" });
  });
});
