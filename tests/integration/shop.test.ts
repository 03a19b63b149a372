import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { parseEnv, env, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { hashPassword } from "~/.server/domains/auth/password";
import { findConversation } from "~/.server/domains/inbox/list";
import { threadOf } from "~/.server/domains/inbox/thread";
import { orderTotal, recordInboundOrders } from "~/.server/domains/shop";
import type { ThreadMessage } from "~/lib/inbox";
import { action as productAction, loader as productLoader } from "~/routes/app/shop/product";
import { action as productsAction, loader as productsLoader } from "~/routes/app/shop/products";
import { action as importAction } from "~/routes/app/shop/import";
import { loader as ordersLoader } from "~/routes/app/shop/orders";
import { loader as orderLoader } from "~/routes/app/shop/order";
import { loader as ordersCsvLoader } from "~/routes/app/shop/orders-csv";
import { action as threadAction, loader as threadLoader } from "~/routes/app/chat/conversation";
import type { InboundInput } from "@jumbe/sandbox/meta/types";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { APP, callRoute, formRequest, getRequest } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startReceiver } from "../support/whatsapp";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

// The shop (decision 138): products kept here and pushed to the Meta sandbox's catalog by jobs,
// product messages sent from the inbox, carts arriving as `order` webhooks through the real
// receiver, the orders pages, CSV and API, and tenants kept apart.

let graph: Awaited<ReturnType<typeof startGraphSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let api: Awaited<ReturnType<typeof startApiV1Server>>;

beforeAll(async () => {
  registerJobHandlers();
  receiver = await startReceiver();
  graph = await startGraphSandbox({ webhookUrl: receiver.url });
  api = await startApiV1Server();
});

afterAll(async () => {
  await api.close();
  await graph.close();
  await receiver.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: APP, GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000" }));
  graph.sandbox.reset();
  graph.sandbox.clearFaults();
});

/** An organisation with WhatsApp connected to the sandbox, its owner signed in. */
async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const connected = await graph.connect(user.organization.id, name);
  const cookie = await signedInCookie(user.email, user.password);
  return { ...user, ...connected, organizationId: user.organization.id, cookie };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const KIKOI = {
  name: "Kikoi ya pwani",
  description: "Cotton kikoi from Lamu",
  price: "1,500",
  retailerId: "KIKOI-1",
  imageUrl: "https://duka.example.co.ke/kikoi.jpg",
  availability: "in stock",
};

const addProduct = (t: Tenant, fields: Record<string, string>) =>
  callRoute(productAction, formRequest("/shop/products/new", fields, { cookie: t.cookie }));

const productsOf = (organizationId: string) =>
  rawQuery<{
    id: string;
    retailer_id: string;
    price_cents: string;
    sync_state: string;
    sync_error: string | null;
    meta_product_id: string | null;
  }>(
    `select id, retailer_id, price_cents::text, sync_state, sync_error, meta_product_id from products where organization_id = $1 order by retailer_id`,
    [organizationId],
  );

/** What the sandbox's catalog connected to the tenant's WABA holds, read through Graph with the tenant's token. */
async function metaProducts(t: Tenant) {
  const [row] = await rawQuery<{ catalog_id: string; token: string }>(
    `select s.catalog_id, a.access_token_encrypted as token from shop_catalogs s join whatsapp_accounts a on a.id = s.account_id where s.organization_id = $1`,
    [t.organizationId],
  );
  if (!row) return [];
  const answer = await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${row.catalog_id}/products`, {
    headers: { Authorization: `Bearer ${decryptSecret(row.token)}` },
  });
  return ((await answer.json()) as { data: { id: string; retailer_id: string; price: string; availability: string }[] }).data;
}

async function agentCookie(organizationId: string) {
  const email = uniqueEmail("agent");
  await db()
    .insert(users)
    .values({
      organizationId,
      email,
      firstName: "Brian",
      lastName: "Otieno",
      orgRole: "agent",
      passwordHash: await hashPassword("Agent#Pass12"),
      isVerified: true,
    });
  return signedInCookie(email, "Agent#Pass12");
}

/** Sends each message through the sandbox's signed webhook and waits until Jumbe stored it. */
async function arrive(inputs: InboundInput[]) {
  const wamids: string[] = [];
  for (const input of inputs) wamids.push((await graph.sandbox.sendInbound(input)).wamid);
  await vi.waitFor(
    async () => {
      await drainJobs();
      const rows = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where wamid = any($1::text[])`, [wamids]);
      expect(rows[0]!.n).toBe(wamids.length);
    },
    { timeout: 30_000, interval: 20 },
  );
  return wamids;
}

describe("products", () => {
  it("adds, checks, edits and removes products, each change pushed to the Meta catalog by a job", async () => {
    const t = await tenant("Duka la Pwani");
    const added = await addProduct(t, KIKOI);
    expect(added.status).toBe(302);
    let [stored] = await productsOf(t.organizationId);
    expect(stored).toMatchObject({ retailer_id: "KIKOI-1", price_cents: "150000", sync_state: "pending" });
    await drainJobs();
    [stored] = await productsOf(t.organizationId);
    expect(stored).toMatchObject({ sync_state: "synced", sync_error: null });
    expect(await metaProducts(t)).toEqual([
      expect.objectContaining({ id: stored!.meta_product_id, retailer_id: "KIKOI-1", price: "1500.00 KES" }),
    ]);
    const [setting] = await rawQuery<{ n: number }>(`select count(*)::int as n from shop_catalogs where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(setting!.n).toBe(1);

    // The form's checks, at their fields: nothing saved.
    const bad = await addProduct(t, { ...KIKOI, retailerId: "KIKOI 2", price: "15.555", imageUrl: "http://plain.example/k.jpg" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.data)).toMatch(/retailerId/);
    expect(JSON.stringify(bad.data)).toMatch(/price/);
    expect(JSON.stringify(bad.data)).toMatch(/imageUrl/);
    const twice = await addProduct(t, KIKOI);
    expect(twice.status).toBe(409);
    expect(await productsOf(t.organizationId)).toHaveLength(1);

    // An agent sees the products but may not change them.
    const agent = await agentCookie(t.organizationId);
    expect((await callRoute(productsLoader, getRequest("/shop/products", { cookie: agent }))).status).toBe(200);
    const refused = await callRoute(productAction, formRequest("/shop/products/new", { ...KIKOI, retailerId: "X-1" }, { cookie: agent }));
    expect([refused.status, refused.location]).toEqual([302, "/unauthorized"]);

    // Edited: pushed again.
    const edited = await callRoute(
      productAction,
      formRequest(`/shop/products/${stored!.id}`, { ...KIKOI, price: "1499.50", availability: "out of stock" }, { cookie: t.cookie }),
      { id: stored!.id },
    );
    expect(edited.status).toBe(302);
    await drainJobs();
    expect(await metaProducts(t)).toEqual([expect.objectContaining({ price: "1499.50 KES", availability: "out of stock" })]);

    // Removed: gone here and at Meta, with the activity log's record of each change.
    const removed = await callRoute(
      productsAction,
      formRequest("/shop/products", { intent: "remove", id: stored!.id, confirm: "yes" }, { cookie: t.cookie }),
    );
    expect(removed.status).toBe(302);
    await drainJobs();
    expect(await productsOf(t.organizationId)).toEqual([]);
    expect(await metaProducts(t)).toEqual([]);
    const log = await rawQuery<{ action: string }>(
      `select action from activity_logs where organization_id = $1 and (action like 'Product%' or action like 'Shop%') order by id`,
      [t.organizationId],
    );
    expect(log.map((l) => l.action)).toEqual(["Product added", "Shop catalog connected", "Product changed", "Product removed"]);
  });

  it("shows Meta's refusal on the product, and 'sync now' puts back what the catalog lost", async () => {
    const t = await tenant("Nairobi Sneakers");
    await addProduct(t, KIKOI);
    await drainJobs();
    const [product] = await productsOf(t.organizationId);
    graph.sandbox.injectFault({
      step: "catalog.product",
      error: { status: 400, code: 100, message: "(#100) Param image_url is not a reachable image" },
    });
    await callRoute(productAction, formRequest(`/shop/products/${product!.id}`, { ...KIKOI, price: "1600" }, { cookie: t.cookie }), {
      id: product!.id,
    });
    await drainJobs();
    const [failed] = await productsOf(t.organizationId);
    expect(failed).toMatchObject({ sync_state: "failed", sync_error: "(#100) Param image_url is not a reachable image" });
    const page = await callRoute(productsLoader, getRequest("/shop/products", { cookie: t.cookie }));
    expect(page.data.products[0]).toMatchObject({ syncState: "failed", syncError: expect.stringMatching(/reachable image/) });

    // The catalog lost the product (deleted in Commerce Manager): "sync now" pushes it again.
    const [row] = await rawQuery<{ token: string }>(`select access_token_encrypted as token from whatsapp_accounts where id = $1`, [
      t.account.id,
    ]);
    await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${failed!.meta_product_id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${decryptSecret(row!.token)}` },
    });
    expect(await metaProducts(t)).toEqual([]);
    const sync = await callRoute(productsAction, formRequest("/shop/products", { intent: "sync" }, { cookie: t.cookie }));
    expect(sync.status).toBe(302);
    await drainJobs();
    expect(await metaProducts(t)).toEqual([expect.objectContaining({ retailer_id: "KIKOI-1", price: "1600.00 KES" })]);
    expect((await productsOf(t.organizationId))[0]).toMatchObject({ sync_state: "synced" });
  });

  it("imports a CSV file, saving the good rows and naming the refused ones by line", async () => {
    const t = await tenant("Mombasa Spices");
    const upload = (text: string) => {
      const form = new FormData();
      form.set("file", new File([text], "products.csv", { type: "text/csv" }));
      return callRoute(
        importAction,
        new Request(`${APP}/shop/products/import`, { method: "POST", body: form, headers: { cookie: t.cookie, origin: APP } }),
      );
    };
    const done = await upload(
      [
        "sku,name,price,image_url,availability",
        "PILAU-1,Pilau masala,250,https://duka.example.co.ke/pilau.jpg,in stock",
        "PILAU-2,Pilau big,two hundred,https://duka.example.co.ke/pilau.jpg,in stock",
        "BAD SKU,Cardamom,300,https://duka.example.co.ke/c.jpg,in stock",
      ].join("\n"),
    );
    expect(done.status).toBe(200);
    expect(done.data).toMatchObject({
      outcome: { created: 1, updated: 0, refused: 2, errors: [{ line: 3 }, { line: 4 }] },
    });
    expect((await productsOf(t.organizationId)).map((p) => p.retailer_id)).toEqual(["PILAU-1"]);
    const noHeader = await upload("PILAU-1,Pilau masala,250\n");
    expect(noHeader.status).toBe(422);
    const empty = await upload("");
    expect(empty.status).toBe(400);
  });
});

/** A tenant with two synced products and a customer who wrote first (the window is open). */
async function shopWithCustomer(name: string, customer = "254722111333") {
  const t = await tenant(name);
  await addProduct(t, KIKOI);
  await addProduct(t, { ...KIKOI, name: "Sandals", retailerId: "SANDAL-9", price: "320.50" });
  await drainJobs();
  await arrive([{ phoneNumberId: t.phoneNumberId, from: customer, name: "Amina Wanjiku", type: "text", text: "Mna vikoi?" }]);
  const [row] = await rawQuery<{ id: string }>(
    `select v.id from conversations v join contacts c on c.id = v.contact_id where v.organization_id = $1 and c.wa_id = $2`,
    [t.organizationId, customer],
  );
  const conversation = (await findConversation(t.organizationId, row!.id))!;
  const products = await productsOf(t.organizationId);
  const [catalog] = await rawQuery<{ catalog_id: string }>(`select catalog_id from shop_catalogs where organization_id = $1`, [
    t.organizationId,
  ]);
  return { t, conversation, products, catalogId: catalog!.catalog_id, customer };
}

/** Sends everything queued, now: the engine spaces messages to one customer, which a test need not wait for. */
async function sendAll(organizationId: string) {
  for (let round = 0; round < 10; round++) {
    await rawQuery(`update messages set next_attempt_at = now() where organization_id = $1 and accepted_at is null and status = 'queued'`, [
      organizationId,
    ]);
    await drainDispatcher();
    const [left] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from messages where organization_id = $1 and direction = 'outbound' and status = 'queued' and accepted_at is null`,
      [organizationId],
    );
    if (!left!.n) return;
  }
}

const sendProducts = (t: Tenant, conversationId: string, fields: Record<string, string>) =>
  callRoute(threadAction, formRequest(`/chat/${conversationId}`, { intent: "products", ...fields }, { cookie: t.cookie }), {
    id: conversationId,
  });

describe("sending products from the inbox", () => {
  it("sends one product, a list and the catalogue; the thread shows each; a bad send is refused at its field", async () => {
    const { t, conversation, products, catalogId } = await shopWithCustomer("Lamu Crafts");
    const [kikoi, sandal] = products;
    const tick = (...ids: string[]) => Object.fromEntries(ids.map((id) => [`product_${id}`, "on"]));
    expect((await sendProducts(t, conversation.id, { productKind: "product", ...tick(kikoi!.id), productBody: "Hii hapa" })).status).toBe(
      302,
    );
    expect(
      (
        await sendProducts(t, conversation.id, {
          productKind: "product_list",
          ...tick(kikoi!.id, sandal!.id),
          productHeader: "Mpya wiki hii",
          productBody: "Chagua unachopenda",
        })
      ).status,
    ).toBe(302);
    expect((await sendProducts(t, conversation.id, { productKind: "catalog_message", productBody: "Angalia duka letu" })).status).toBe(302);
    await sendAll(t.organizationId);
    const atMeta = graph.sandbox.messages({ phoneNumberId: t.phoneNumberId }).map((m) => m.body.interactive);
    expect(atMeta).toEqual([
      expect.objectContaining({ type: "product", action: { catalog_id: catalogId, product_retailer_id: "KIKOI-1" } }),
      expect.objectContaining({
        type: "product_list",
        header: { type: "text", text: "Mpya wiki hii" },
        action: {
          catalog_id: catalogId,
          sections: [{ title: "Products", product_items: [{ product_retailer_id: "KIKOI-1" }, { product_retailer_id: "SANDAL-9" }] }],
        },
      }),
      expect.objectContaining({
        type: "catalog_message",
        action: { name: "catalog_message", parameters: { thumbnail_product_retailer_id: "KIKOI-1" } },
      }),
    ]);
    const thread = await threadOf({
      organizationId: t.organizationId,
      conversationId: conversation.id,
      contactId: conversation.contactId,
      phoneNumberId: conversation.phoneNumberId,
    });
    const sent = thread.items.filter((i): i is ThreadMessage => i.type === "message" && i.direction === "outbound");
    expect(sent.map((s) => s.content)).toEqual([
      expect.objectContaining({ kind: "interactive", body: "Hii hapa\n\nProducts: Kikoi ya pwani", buttons: ["View"] }),
      expect.objectContaining({ kind: "interactive", header: "Mpya wiki hii", buttons: ["View items"] }),
      expect.objectContaining({ kind: "interactive", buttons: ["View catalog"] }),
    ]);

    // Refused before anything is queued, at the field, with what was typed.
    const noHeader = await sendProducts(t, conversation.id, { productKind: "product_list", ...tick(kikoi!.id), productBody: "Chagua" });
    expect(noHeader.status).toBe(400);
    expect(noHeader.data).toMatchObject({ errors: { productHeader: expect.any(String) }, values: { productBody: "Chagua" } });
    const two = await sendProducts(t, conversation.id, { productKind: "product", ...tick(kikoi!.id, sandal!.id) });
    expect(two.data).toMatchObject({ errors: { products: expect.any(String) } });
    const unknownKind = await sendProducts(t, conversation.id, { productKind: "carousel" });
    expect(unknownKind.data).toMatchObject({ errors: { productKind: expect.any(String) } });
  });

  it("lists 50 products of a large catalogue, finds others by name or SKU keeping the ticked ones, and sends a product found so", async () => {
    const { t, conversation } = await shopWithCustomer("Gikomba Traders", "254722111444");
    // 58 more products the catalog holds (2 made through the form above): 60 in all.
    await rawQuery(
      `insert into products (organization_id, retailer_id, name, price_cents, meta_product_id, sync_state, synced_at)
       select $1, 'MTUMBA-' || lpad(i::text, 3, '0'), 'Mtumba ' || lpad(i::text, 3, '0'), 50000 + i, 'meta-mtumba-' || i, 'synced', now()
       from generate_series(1, 58) as i`,
      [t.organizationId],
    );
    const other = await tenant("Toi Market");
    await addProduct(other, { ...KIKOI, retailerId: "TOI-1", name: "Mtumba wa Toi" });
    await drainJobs();
    const [foreign] = await productsOf(other.organizationId);
    const picker = async (query: string) => {
      const page = await callRoute(threadLoader, getRequest(`/chat/${conversation.id}${query}`, { cookie: t.cookie }), {
        id: conversation.id,
      });
      expect(page.status).toBe(200);
      return page.data.shopProducts!;
    };

    const first = await picker("");
    expect(first.total).toBe(60);
    expect(first.products).toHaveLength(50);
    expect(first.products.map((p) => p.name)).not.toContain("Mtumba 058");

    // Found by its SKU, with a ticked product kept first and what was typed kept; another
    // organisation's product, ticked in the address, is not shown.
    const lastName = first.products.at(-1)!;
    const found = await picker(
      `?pq=mtumba-058&product_${lastName.id}=on&product_${foreign!.id}=on&productKind=product_list&productHeader=Mpya`,
    );
    expect(found.products.map((p) => p.name)).toEqual([lastName.name, "Mtumba 058"]);
    expect(found.values).toMatchObject({ [`product_${lastName.id}`]: "on", productKind: "product_list", productHeader: "Mpya" });
    expect(found.products.map((p) => p.id)).not.toContain(foreign!.id);
    expect((await picker("?pq=hakuna-kitu")).products).toEqual([]);
    // % and _ are letters in a search, not patterns.
    expect((await picker("?pq=%25")).products).toEqual([]);

    // The product beyond the first 50 is sent by its ticked box; a box naming another
    // organisation's product sends nothing of it.
    const mtumba58 = found.products.find((p) => p.name === "Mtumba 058")!;
    const sent = await sendProducts(t, conversation.id, {
      productKind: "product_list",
      [`product_${lastName.id}`]: "on",
      [`product_${mtumba58.id}`]: "on",
      [`product_${foreign!.id}`]: "on",
      productHeader: "Mpya wiki hii",
      productBody: "Chagua",
    });
    expect(sent.status).toBe(302);
    const onlyForeign = await sendProducts(t, conversation.id, {
      productKind: "product",
      [`product_${foreign!.id}`]: "on",
      productBody: "Hii",
    });
    expect(onlyForeign.data).toMatchObject({ errors: { products: expect.any(String) } });
    // One message queued, naming the two products by their SKUs (the 58 made here are not in the
    // sandbox's catalog, so what Meta would answer is not the point: the list asked of it is).
    const queued = await rawQuery<{ payload: string }>(
      `select payload::text as payload from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(queued).toHaveLength(1);
    expect(queued[0]!.payload.match(/MTUMBA-\d{3}|TOI-1/g)).toEqual([lastName.retailerId, "MTUMBA-058"]);
  });

  it("records Meta's refusal of a list naming a product the catalog no longer holds", async () => {
    const { t, conversation, products } = await shopWithCustomer("Kilifi Cashews");
    const [row] = await rawQuery<{ token: string }>(`select access_token_encrypted as token from whatsapp_accounts where id = $1`, [
      t.account.id,
    ]);
    await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${products[1]!.meta_product_id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${decryptSecret(row!.token)}` },
    });
    await sendProducts(t, conversation.id, {
      productKind: "product_list",
      [`product_${products[0]!.id}`]: "on",
      [`product_${products[1]!.id}`]: "on",
      productHeader: "Korosho",
      productBody: "Chagua",
    });
    await sendAll(t.organizationId);
    const [message] = await rawQuery<{ status: string; error_code: number | null }>(
      `select status, error_code from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(message).toEqual({ status: "failed", error_code: 131009 });
  });
});

const cart = (catalogId: string, items: [string, number, number][], text = "") => ({
  catalogId,
  text,
  items: items.map(([retailerId, quantity, itemPrice]) => ({ retailerId, quantity, itemPrice, currency: "KES" })),
});

describe("inbound orders", () => {
  it("turns a cart into one order, whatever the webhook repeats, with a cart card in the thread and the orders pages", async () => {
    const { t, conversation, catalogId, customer } = await shopWithCustomer("Malindi Beachwear");
    graph.sandbox.setDeliveryChaos({ duplicate: 2 });
    // The cart's prices are the customer's phone's; Jumbe's own prices make the total.
    const [wamid] = await arrive([
      {
        phoneNumberId: t.phoneNumberId,
        from: customer,
        name: "Amina Wanjiku",
        type: "order",
        order: cart(
          catalogId,
          [
            ["KIKOI-1", 2, 1],
            ["SANDAL-9", 1, 320.5],
          ],
          "Leo jioni",
        ),
      },
    ]);
    graph.sandbox.setDeliveryChaos({});
    await graph.sandbox.flushWebhooks();
    await drainJobs();
    const orders = await rawQuery<{ id: string; total_cents: string; note: string; conversation_id: string }>(
      `select id, total_cents::text, note, conversation_id from orders where organization_id = $1`,
      [t.organizationId],
    );
    expect(orders).toEqual([{ id: expect.any(String), total_cents: "332050", note: "Leo jioni", conversation_id: conversation.id }]);
    const [message] = await rawQuery<{ id: string }>(`select id from messages where wamid = $1`, [wamid]);
    // The writer called again with the same cart: still one order.
    await recordInboundOrders(db(), [
      {
        organizationId: t.organizationId,
        contactId: null,
        conversationId: null,
        messageId: message!.id,
        wamid: wamid!,
        order: {
          catalog_id: catalogId,
          text: "",
          product_items: [{ product_retailer_id: "KIKOI-1", quantity: 9, item_price: 1, currency: "KES" }],
        },
        receivedAt: new Date().toISOString(),
      },
    ]);
    const items = await rawQuery<{ n: number; sum: string }>(
      `select count(*)::int as n, sum(quantity * unit_price_cents)::text as sum from order_items where order_id = $1`,
      [orders[0]!.id],
    );
    expect(items[0]).toEqual({ n: 2, sum: "332050" });
    expect(await orderTotal(t.organizationId, orders[0]!.id)).toMatchObject({ totalCents: 332050, currency: "KES", status: "received" });

    const thread = await threadOf({
      organizationId: t.organizationId,
      conversationId: conversation.id,
      contactId: conversation.contactId,
      phoneNumberId: conversation.phoneNumberId,
    });
    const card = thread.items.find((i): i is ThreadMessage => i.type === "message" && i.content.kind === "order");
    expect(card?.content).toEqual({
      kind: "order",
      items: 3,
      text: "Leo jioni",
      cart: {
        orderId: orders[0]!.id,
        totalCents: 332050,
        status: "received",
        lines: [
          { name: "Kikoi ya pwani", quantity: 2, unitPriceCents: 150000 },
          { name: "Sandals", quantity: 1, unitPriceCents: 32050 },
        ],
      },
    });

    const list = await callRoute(ordersLoader, getRequest("/shop/orders", { cookie: t.cookie }));
    expect(list.data.orders).toEqual([expect.objectContaining({ id: orders[0]!.id, totalCents: 332050, status: "received" })]);
    const filtered = await callRoute(ordersLoader, getRequest("/shop/orders?status=paid", { cookie: t.cookie }));
    expect(filtered.data.orders).toEqual([]);
    const one = await callRoute(orderLoader, getRequest(`/shop/orders/${orders[0]!.id}`, { cookie: t.cookie }), { id: orders[0]!.id });
    expect(one.data.order.items).toHaveLength(2);
    const csv = await ordersCsvLoader({
      request: getRequest("/shop/orders.csv", { cookie: t.cookie }),
      url: new URL(`${APP}/shop/orders.csv`),
      params: {},
      context: undefined,
    } as never);
    const text = await (csv as Response).text();
    const lines = text
      .trim()
      .split("\r\n")
      .map((line) => line.replaceAll('"', ""));
    expect(lines[0]).toBe(
      "order_id,received_at,status,customer,phone,sku,product,quantity,unit_price_kes,line_total_kes,order_total_kes,note",
    );
    expect(lines.slice(1).map((l) => l.split(",").slice(5).join(","))).toEqual([
      "KIKOI-1,Kikoi ya pwani,2,1500.00,3000.00,3320.50,Leo jioni",
      "SANDAL-9,Sandals,1,320.50,320.50,3320.50,Leo jioni",
    ]);
  });
});

describe("tenant separation", () => {
  it("answers 404 for another organisation's product and order, and keeps a cart to the number it was sent to", async () => {
    const a = await shopWithCustomer("Kisumu Fabrics", "254733000111");
    const b = await tenant("Eldoret Dairy");
    await arrive([
      {
        phoneNumberId: a.t.phoneNumberId,
        from: a.customer,
        type: "order",
        order: cart(a.catalogId, [["KIKOI-1", 1, 1500]]),
      },
    ]);
    const [order] = await rawQuery<{ id: string }>(`select id from orders where organization_id = $1`, [a.t.organizationId]);
    const product = a.products[0]!;
    const bProduct = await callRoute(productLoader, getRequest(`/shop/products/${product.id}`, { cookie: b.cookie }), { id: product.id });
    expect(bProduct.status).toBe(404);
    const bEdit = await callRoute(productAction, formRequest(`/shop/products/${product.id}`, KIKOI, { cookie: b.cookie }), {
      id: product.id,
    });
    expect(bEdit.status).toBe(404);
    const bRemove = await callRoute(
      productsAction,
      formRequest("/shop/products", { intent: "remove", id: product.id, confirm: "yes" }, { cookie: b.cookie }),
    );
    expect(bRemove.status).toBe(404);
    expect(await productsOf(a.t.organizationId)).toHaveLength(2);
    const bOrder = await callRoute(orderLoader, getRequest(`/shop/orders/${order!.id}`, { cookie: b.cookie }), { id: order!.id });
    expect(bOrder.status).toBe(404);
    const malformed = await callRoute(orderLoader, getRequest(`/shop/orders/nope`, { cookie: b.cookie }), { id: "nope" });
    expect(malformed.status).toBe(404);
    expect((await callRoute(ordersLoader, getRequest("/shop/orders", { cookie: b.cookie }))).data.orders).toEqual([]);

    // B has a product with A's SKU; a cart sent to B's number names it, and lands in B only, priced by B.
    await addProduct(b, { ...KIKOI, price: "99" });
    await drainJobs();
    await arrive([
      { phoneNumberId: b.phoneNumberId, from: "254700999888", type: "order", order: cart("whatever", [["KIKOI-1", 3, 1500]]) },
    ]);
    const totals = await rawQuery<{ organization_id: string; total_cents: string }>(
      `select organization_id, total_cents::text from orders o where organization_id = any($1::uuid[]) order by o.total_cents desc`,
      [[a.t.organizationId, b.organizationId]],
    );
    expect(totals).toEqual([
      { organization_id: a.t.organizationId, total_cents: "150000" },
      { organization_id: b.organizationId, total_cents: "29700" },
    ]);
  });
});

describe("the API", () => {
  it("lists orders a page at a time and answers one, 404 for another organisation's", async () => {
    const t = await tenantWithApiKey("Thika Pineapples");
    const other = await tenantWithApiKey("Nyeri Coffee");
    const message = async (organizationId: string, wamid: string) => {
      const [row] = await rawQuery<{ id: string }>(
        `insert into messages (organization_id, direction, status, body, wamid, phone_number_id, message_type, payload)
         values ($1, 'inbound', 'received', '[order]', $2, '1', 'order', '{}'::jsonb) returning id`,
        [organizationId, wamid],
      );
      return row!.id;
    };
    for (const [i, at] of ["2026-11-01T08:00:00Z", "2026-11-02T08:00:00Z", "2026-11-03T08:00:00Z"].entries())
      await recordInboundOrders(db(), [
        {
          organizationId: t.organizationId,
          contactId: null,
          conversationId: null,
          messageId: await message(t.organizationId, `wamid.api-${i}`),
          wamid: `wamid.api-${i}`,
          order: {
            catalog_id: "1",
            text: "",
            product_items: [{ product_retailer_id: "P-1", quantity: i + 1, item_price: 10, currency: "KES" }],
          },
          receivedAt: at,
        },
      ]);
    const first = await api.call(t.key, "GET", "/api/v1/orders?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.data.map((o: { totalCents: number }) => o.totalCents)).toEqual([3000, 2000]);
    expect(first.body.hasMore).toBe(true);
    const second = await api.call(t.key, "GET", `/api/v1/orders?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.body.data[0]).toMatchObject({
      totalCents: 1000,
      items: [{ sku: "P-1", quantity: 1, unitPriceCents: 1000, productId: null }],
    });
    const id = second.body.data[0].id as string;
    expect((await api.call(t.key, "GET", `/api/v1/orders/${id}`)).body).toMatchObject({ id, status: "received" });
    expect((await api.call(other.key, "GET", `/api/v1/orders/${id}`)).status).toBe(404);
    expect((await api.call(other.key, "GET", "/api/v1/orders")).body.data).toEqual([]);
    expect((await api.call(t.key, "GET", "/api/v1/orders?cursor=nonsense")).status).toBe(400);
  });
});
