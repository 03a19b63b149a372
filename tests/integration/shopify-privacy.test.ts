import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { saveContact } from "~/.server/domains/contacts/manage";
import { shopifyWebhookHmac } from "@jumbe/sandbox/shopify/index";
import * as shopifyPage from "~/routes/app/integrations/shopify";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, formRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, metaReceived } from "../support/sending-kit";
import { shopifyHarnessForFile } from "../support/shopify-harness";
import { CLIENT_SECRET } from "@jumbe/sandbox/shopify/test-support";
import { SHOPIFY_WEBHOOK_PATH } from "~/.server/adapters/webhooks-in/shopify";

// Issue 73, decision 108: Shopify's mandatory privacy webhooks. A customer's data request is made
// ready for the owner (the bell, the log, a file on the Shopify page); a customer's erasure erases
// their contact and messages with the contacts' own erasure; a shop's removal 48 hours after the
// uninstall takes the shop's connection, events and mappings. Each once per signed body, and only
// for the shop the body names.

registerJobHandlers();
registerConnectors();

const meta = metaSandboxForFile({ appUrl: () => sh.appOrigin });
// After the Meta sandbox's: its environment, then the Shopify settings added to it.
const sh = shopifyHarnessForFile({
  shopPrefix: "faragha",
  setEnv: (vars) => setEnv(parseEnv({ NODE_ENV: "test", GRAPH_API_BASE_URL: meta.graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000", ...vars })),
});

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const organizationId = account.organization.id;
  const connected = await meta.graph.connect(organizationId, name);
  return { ...account, cookie, organizationId, userId: account.user.id, ...connected };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** Connects a new shop through the integrations page and Shopify's install page, as the owner would. */
const connect = (t: Tenant, shop?: string) => sh.connect(t.cookie, shop);

async function settle() {
  await sh.shopify.sandbox.flushWebhooks();
  await drainJobs();
  await drainDispatcher();
}

/** A privacy webhook as Shopify sends it: the body signed with the app's secret, the shop in the header. */
async function deliver(topic: string, shop: string, payload: Record<string, unknown>, headerShop = shop) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${sh.appOrigin}${SHOPIFY_WEBHOOK_PATH}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Hmac-Sha256": shopifyWebhookHmac(body, CLIENT_SECRET),
      "X-Shopify-Shop-Domain": headerShop,
      "X-Shopify-Webhook-Id": crypto.randomUUID(),
    },
    body,
  });
  await response.text();
  return response.status;
}

const privacyEvents = (organizationId: string) =>
  rawQuery<{ id: string; topic: string; status: string; reason: string | null; payload: Record<string, unknown>; phone: string | null }>(
    `select id, topic, status, reason, payload, phone from shopify_events
     where organization_id = $1 and topic in ('customers/data_request', 'customers/redact', 'shop/redact') order by created_at, id`,
    [organizationId],
  );

const PHONE = "+254712345671";
const ORDER = {
  customer: { first_name: "Achieng", last_name: "Otieno", phone: "0712 345 671", email: "achieng@example.co.ke" },
  line_items: [{ title: "Kiondo basket", quantity: 2, price: "1250.00" }],
};

/** A shop whose order sent Achieng the order template: her contact, her message and the order's event. */
async function shopWithCustomer(name: string) {
  const t = await tenant(name);
  const shop = await connect(t);
  await saveContact(
    t,
    { name: "Achieng Otieno", phone: "0712 345 671" },
    { consent: { status: "opted_in", source: "form", evidence: "till" } },
  );
  await approvedBodyTemplate(meta.graph, t, "order_received", "UTILITY", "Habari {{1}}, we got your order {{2}} of {{3}}. Asante!");
  const [template] = await rawQuery<{ id: string }>(
    `select id from message_templates where organization_id = $1 and name = 'order_received'`,
    [t.organizationId],
  );
  await run(
    shopifyPage.action,
    formRequest("/integrations/shopify", { eventType: "order_created", enabled: "on", templateId: template!.id }, { cookie: t.cookie }),
  );
  const { json } = await sh.shopify.control<{ order: { id: number; customer: { id: number } } }>(`/shops/${shop}/orders`, { body: ORDER });
  await settle();
  expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(1);
  const [contact] = await rawQuery<{ id: string }>(`select id from contacts where organization_id = $1 and phone = $2`, [
    t.organizationId,
    PHONE,
  ]);
  return { t, shop, order: json.order, contactId: contact!.id };
}

describe("customers/data_request", () => {
  it("makes the customer's data ready for the owner to download and send on, says so in the bell and the log, once", async () => {
    const { t, shop, order, contactId } = await shopWithCustomer("Faragha Data Ltd");
    const request = {
      shop_id: 954889,
      shop_domain: shop,
      orders_requested: [order.id],
      customer: { id: order.customer.id, email: "achieng@example.co.ke", phone: "0712 345 671" },
      data_request: { id: 9999 },
    };
    expect(await deliver("customers/data_request", shop, request)).toBe(200);
    // Shopify delivers again (no 2xx seen in time): the same body is the same request.
    expect(await deliver("customers/data_request", shop, request)).toBe(200);
    await settle();
    await drainJobs();

    const [row, ...more] = await privacyEvents(t.organizationId);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({ topic: "customers/data_request", status: "done", reason: "privacy_export_ready" });
    const notices = await rawQuery<{ title: string; body: string; link: string; user_id: string }>(
      `select title, body, link, user_id from notifications where organization_id = $1 and event = 'privacy_request'`,
      [t.organizationId],
    );
    expect(notices).toEqual([
      {
        title: `${shop}: a customer asked for their data`,
        body: `Download what Jumbe holds about customer ${order.customer.id} from the Shopify messages page and send it to the shop within 30 days.`,
        link: "/integrations/shopify",
        user_id: t.userId,
      },
    ]);
    const logged = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Shopify privacy request'`,
      [t.organizationId],
    );
    expect(logged.map((l) => l.details)).toEqual([
      `Shopify ${shop}: data request for customer ${order.customer.id} (contacts: 1, events: 1)`,
    ]);

    // The Shopify page lists it as done, with the file to download.
    const page = await appFetch(new Request(`${APP}/integrations/shopify`, { headers: { cookie: t.cookie, accept: "text/html" } }));
    const html = await page.text();
    expect(html).toContain("Customer data request");
    expect(html).toContain(`href="/integrations/shopify/requests/${row!.id}/data.json"`);

    const file = await appFetch(
      new Request(`${APP}/integrations/shopify/requests/${row!.id}/data.json`, { headers: { cookie: t.cookie } }),
    );
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="shopify-data-request-${row!.id}.json"`);
    const data = JSON.parse(await file.text());
    expect(data.shop).toBe(shop);
    expect(data.contacts).toHaveLength(1);
    expect(data.contacts[0].profile).toMatchObject({ id: contactId, phone: PHONE });
    expect(data.contacts[0].messages).toHaveLength(1);
    expect(data.shopifyEvents.map((e: { topic: string }) => e.topic)).toEqual(["orders/create"]);

    // Another organisation's member: not found.
    const stranger = await tenant("Faragha Stranger");
    const foreign = await appFetch(
      new Request(`${APP}/integrations/shopify/requests/${row!.id}/data.json`, { headers: { cookie: stranger.cookie } }),
    );
    expect(foreign.status).toBe(404);
  });
});

describe("customers/redact", () => {
  it("erases the customer's contact and messages and blanks the shop's events about them, once, for that shop only", async () => {
    const { t, shop, order, contactId } = await shopWithCustomer("Faragha Erase Ltd");
    // Another business, its own shop, with a contact of the same number: Shopify's request for the first shop is not its.
    const other = await tenant("Faragha Bystander");
    const otherShop = await connect(other);
    await saveContact(
      other,
      { name: "Achieng O.", phone: "0712 345 671" },
      { consent: { status: "opted_in", source: "form", evidence: "till" } },
    );

    const redact = {
      shop_id: 954889,
      shop_domain: shop,
      customer: { id: order.customer.id, email: "achieng@example.co.ke", phone: "0712 345 671" },
      orders_to_redact: [order.id],
    };
    // The body names the first shop: under the other shop's header it is refused, nothing stored.
    expect(await deliver("customers/redact", shop, redact, otherShop)).toBe(400);
    expect(await deliver("customers/redact", shop, redact)).toBe(200);
    expect(await deliver("customers/redact", shop, redact)).toBe(200);
    await settle();

    expect(await rawQuery(`select 1 from contacts where id = $1`, [contactId])).toHaveLength(0);
    const messages = await rawQuery<{ body: string; recipient_phone: string | null; contact_id: string | null }>(
      `select body, recipient_phone, contact_id from messages where organization_id = $1`,
      [t.organizationId],
    );
    expect(messages).toEqual([{ body: "", recipient_phone: null, contact_id: null }]);
    const orders = await rawQuery<{ payload: unknown; phone: string | null }>(
      `select payload, phone from shopify_events where organization_id = $1 and topic = 'orders/create'`,
      [t.organizationId],
    );
    expect(orders).toEqual([{ payload: {}, phone: null }]);
    const [row, ...more] = await privacyEvents(t.organizationId);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({ status: "done", reason: "privacy_customer_erased", phone: null });
    expect(JSON.stringify(row!.payload)).not.toContain("0712");
    expect(JSON.stringify(row!.payload)).not.toContain("achieng@");
    const logged = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action in ('Shopify privacy request', 'Contact erased') order by created_at, id`,
      [t.organizationId],
    );
    expect(logged.map((l) => l.details)).toEqual([
      `Contact ${contactId} was erased at their request (Data Protection Act 2019, s.40); their messages are kept without personal content.`,
      `Shopify ${shop}: customer ${order.customer.id} erased (contacts: 1, events: 1)`,
    ]);

    // The other business's contact and events are untouched.
    expect(await rawQuery(`select 1 from contacts where organization_id = $1 and phone = $2`, [other.organizationId, PHONE])).toHaveLength(
      1,
    );
    expect(await privacyEvents(other.organizationId)).toHaveLength(0);
  });
});

describe("shop/redact", () => {
  it("removes the shop's connection, events and mappings 48 hours after the uninstall, keeps the business's contacts", async () => {
    const { t, shop, contactId } = await shopWithCustomer("Faragha Shop Ltd");
    const body = { shop_id: 954890, shop_domain: shop };
    // While the shop still has Jumbe (a replay, or installed again), nothing goes.
    expect(await deliver("shop/redact", shop, body)).toBe(200);
    await settle();
    expect((await privacyEvents(t.organizationId)).map((e) => e.reason)).toEqual(["privacy_shop_connected_again"]);
    expect(await rawQuery(`select 1 from integration_connections where organization_id = $1`, [t.organizationId])).toHaveLength(1);

    await sh.shopify.control(`/shops/${shop}/uninstall`, { body: {} });
    await settle();
    expect(await deliver("shop/redact", shop, body)).toBe(200);
    await settle();
    expect(await rawQuery(`select 1 from integration_connections where organization_id = $1`, [t.organizationId])).toHaveLength(0);
    expect(await rawQuery(`select 1 from shopify_mappings where organization_id = $1`, [t.organizationId])).toHaveLength(0);
    const left = await rawQuery<{ topic: string; reason: string }>(
      `select topic, reason from shopify_events where organization_id = $1 order by created_at, id`,
      [t.organizationId],
    );
    // The shop's events go (its order, its removal, the request kept earlier); this request stays as the record.
    expect(left).toEqual([{ topic: "shop/redact", reason: "privacy_shop_erased" }]);
    // The business's own contact stays (a customer's erasure is customers/redact).
    expect(await rawQuery(`select 1 from contacts where id = $1`, [contactId])).toHaveLength(1);
    // Shopify's retry finds no connection: nothing stored, nothing done again.
    expect(await deliver("shop/redact", shop, body)).toBe(200);
    await settle();
    expect(await rawQuery(`select 1 from shopify_events where organization_id = $1`, [t.organizationId])).toHaveLength(1);
    const logged = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Shopify privacy request' order by created_at, id`,
      [t.organizationId],
    );
    expect(logged.map((l) => l.details)).toEqual([
      `Shopify ${shop}: the shop's data kept, because the shop is connected again`,
      `Shopify ${shop}: the shop's data removed (events: 3)`,
    ]);
  });

  it("refuses a privacy body that names no shop, and one that names another shop than the header", async () => {
    const t = await tenant("Faragha Refusals");
    const shop = await connect(t);
    expect(await deliver("shop/redact", shop, { shop_id: 1 })).toBe(400);
    expect(await deliver("shop/redact", shop, { shop_id: 1, shop_domain: "someone-else.myshopify.com" })).toBe(400);
    expect(await privacyEvents(t.organizationId)).toHaveLength(0);
  });
});
