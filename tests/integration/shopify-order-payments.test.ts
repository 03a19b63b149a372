import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { enqueueJob } from "~/.server/infrastructure/jobs/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { expireRequests } from "~/.server/domains/payments/requests/check";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { markShopifyOrdersPaid } from "~/.server/domains/integrations/shopify/mark-paid";
import { SHOPIFY_MARK_PAID_QUEUE } from "~/.server/domains/integrations/shopify/order-payments";
import { shopifyWebhookHmac } from "@jumbe/sandbox/shopify/index";
import * as shopifyPage from "~/routes/app/integrations/shopify";
import { signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { shopifyHarnessForFile } from "../support/shopify-harness";
import { paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";
import { CLIENT_SECRET } from "@jumbe/sandbox/shopify/test-support";

// Issue 76, decision 142: a Shopify order waiting for its payment (cash on delivery) asks its customer
// to pay by M-Pesa in their conversation, once however often its webhook comes; the paid request marks
// the order paid in the shop once (a retried job too); an expired one leaves it pending; another
// currency is refused in words; another organisation's shop touches nothing.

registerJobHandlers();
registerConnectors();
const h = paymentRequestsHarnessForFile();

const sh = shopifyHarnessForFile({ shopPrefix: "pay", setEnv: (vars) => h.setHarnessEnv(vars) });

async function tenant(name: string) {
  const t = await h.tenant(name);
  const cookie = await signedInCookie(t.user.email, t.user.password);
  return { ...t, cookie };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** Connects a new shop through the integrations page and Shopify's install page, as the owner would. */
const connect = (t: Tenant, shop?: string) => sh.connect(t.cookie, shop);

const askPayment = (t: Tenant, on: boolean) =>
  run(
    shopifyPage.action,
    formRequest("/integrations/shopify", { intent: "ask-payment", ...(on ? { askPayment: "on" } : {}) }, { cookie: t.cookie }),
  );

async function settle() {
  await sh.shopify.sandbox.flushWebhooks();
  await drainJobs();
  await drainDispatcher();
}

const payments = (organizationId: string) =>
  rawQuery<{ order_id: string; status: string; reason: string | null; payment_request_id: string | null; amount_kes: number | null }>(
    `select order_id, status, reason, payment_request_id, amount_kes from shopify_order_payments where organization_id = $1 order by created_at`,
    [organizationId],
  );
const requests = (organizationId: string) =>
  rawQuery<{ id: string; amount_kes: number; source: string; source_id: string; reference: string; idempotency_key: string }>(
    `select id, amount_kes, source, source_id, reference, idempotency_key from payment_requests where organization_id = $1`,
    [organizationId],
  );

/** A signed orders/create body posted to Jumbe's webhook route as Shopify would (another updated_at: a new delivery key). */
async function deliver(shop: string, body: Record<string, unknown>) {
  const raw = JSON.stringify(body);
  const response = await fetch(`${sh.appOrigin}/webhooks/shopify`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Hmac-Sha256": shopifyWebhookHmac(raw, CLIENT_SECRET),
      "X-Shopify-Shop-Domain": shop,
      "X-Shopify-Event-Id": `evt-${Math.random()}`,
    },
    body: raw,
  });
  expect(response.status).toBe(200);
}

const pendingOrder = (phone: string, price = "1250.50") => ({
  customer: { first_name: "Achieng", last_name: "Otieno", phone },
  line_items: [{ title: "Kiondo basket", quantity: 1, price }],
  financial_status: "pending",
});

describe("a pending Shopify order asks for payment by M-Pesa", () => {
  it("asks once for a redelivered webhook, and the paid request marks the order paid in the shop once", async () => {
    const t = await tenant("Duka la Shopify");
    const shop = await connect(t);
    const from = "254711000000"; // the M-Pesa sandbox pays at once
    await h.customerWrites(t, from);

    // Off by default: a pending order asks nothing.
    sh.shopify.sandbox.createOrder(shop, pendingOrder("0711 000 000"));
    await settle();
    expect(await payments(t.organizationId)).toEqual([]);

    const saved = await askPayment(t, true);
    expect(saved.status).toBe(302);
    const logged = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action = 'Shopify payment setting changed'`,
      [t.organizationId],
    );
    expect(logged).toEqual([
      { action: "Shopify payment setting changed", details: `Shopify ${shop}: pending orders now ask for payment by M-Pesa` },
    ]);

    const { order } = sh.shopify.sandbox.createOrder(shop, pendingOrder("0711 000 000"));
    const orderId = Number(order.id);
    await settle();
    // Redelivered: the same body again, and a later version of it (another delivery key).
    await deliver(shop, order);
    await deliver(shop, { ...order, updated_at: "2030-01-01T00:00:00Z" });
    await settle();

    const asked = await requests(t.organizationId);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      amount_kes: 1251,
      source: "shopify",
      source_id: String(orderId),
      reference: `SHOP${order.order_number}`,
      idempotency_key: `shopify-order:${shop}:${orderId}`,
    });
    expect(await payments(t.organizationId)).toEqual([
      { order_id: String(orderId), status: "requested", reason: null, payment_request_id: asked[0]!.id, amount_kes: 1251 },
    ]);

    await h.tap(t, from, asked[0]!.id, "pay");
    await until(
      () => requestRow(asked[0]!.id),
      (r) => r.status === "paid",
    );
    await until(
      () => payments(t.organizationId),
      (rows) => rows[0]?.status === "marked",
    );
    expect(sh.shopify.sandbox.order(orderId)!.financialStatus).toBe("paid");
    expect(sh.shopify.sandbox.order(orderId)!.transactions).toHaveLength(1);

    // The job again (queued twice, or run again after its answer was lost): the shop is asked no more.
    await enqueueJob(SHOPIFY_MARK_PAID_QUEUE, { id: (await rawQuery<{ id: string }>(`select id from shopify_order_payments`))[0]!.id });
    await drainJobs();
    await rawQuery(`update shopify_order_payments set status = 'paid', marked_at = null where organization_id = $1`, [t.organizationId]);
    const [row] = await rawQuery<{ id: string }>(`select id from shopify_order_payments where organization_id = $1`, [t.organizationId]);
    await markShopifyOrdersPaid([{ id: 1, queue: SHOPIFY_MARK_PAID_QUEUE, attempts: 2, payload: { id: row!.id } }]);
    expect((await payments(t.organizationId))[0]!.status).toBe("marked");
    expect(sh.shopify.sandbox.order(orderId)!.transactions).toHaveLength(1);

    const page = await run(shopifyPage.loader, getRequest("/integrations/shopify", { cookie: t.cookie }));
    expect(JSON.stringify(page.data)).toContain("Paid by M-Pesa (KES 1,251) and marked paid in Shopify");
  });

  it("leaves the order pending when its request expires, and says why when it cannot ask", async () => {
    const t = await tenant("Duka la Pili Shopify");
    const shop = await connect(t);
    expect((await askPayment(t, true)).status).toBe(302);
    await h.customerWrites(t, "254722700001");

    const { order } = sh.shopify.sandbox.createOrder(shop, pendingOrder("0722 700 001", "800"));
    await settle();
    const [asked] = await requests(t.organizationId);
    await rawQuery(`update payment_requests set expires_at = now() - interval '1 minute' where id = $1`, [asked!.id]);
    expect(await expireRequests()).toBe(1);
    await drainJobs();
    expect(sh.shopify.sandbox.order(Number(order.id))!.financialStatus).toBe("pending");
    expect((await payments(t.organizationId))[0]).toMatchObject({ status: "expired" });

    // No conversation with this customer yet; and an order in dollars.
    sh.shopify.sandbox.createOrder(shop, pendingOrder("0733 700 002"));
    const imported = await sh.shopify.control<{ orders: Record<string, unknown>[] }>(`/shops/${shop}/orders/import`, {
      body: { orders: [pendingOrder("0722 700 001")] },
    });
    await deliver(shop, { ...imported.json.orders[0]!, currency: "USD", presentment_currency: "USD" });
    await settle();
    expect((await payments(t.organizationId)).map((p) => [p.status, p.reason])).toEqual([
      ["expired", null],
      ["refused", "no_conversation"],
      ["refused", "currency_not_kes"],
    ]);
    expect(await requests(t.organizationId)).toHaveLength(1);
    const page = JSON.stringify((await run(shopifyPage.loader, getRequest("/integrations/shopify", { cookie: t.cookie }))).data);
    expect(page).toContain("the order is not in Kenyan shillings (KES), and M-Pesa takes shillings only");
    expect(page).toContain("the customer has no WhatsApp conversation with you yet");
    expect(page).toContain("The M-Pesa request expired: the order stays pending in Shopify");
  });

  it("keeps organisations apart: another shop's order under this shop's name, and another's switch, touch nothing", async () => {
    const a = await tenant("Duka A Shopify");
    const b = await tenant("Duka B Shopify");
    const shopA = await connect(a);
    const shopB = await connect(b);
    expect((await askPayment(a, true)).status).toBe(302);
    await h.customerWrites(a, "254722800001");
    // B's order, posted as if it were A's shop: A's shop does not know it, so it is ignored.
    const { order: foreign } = sh.shopify.sandbox.createOrder(shopB, pendingOrder("0722 800 001"));
    await settle();
    await deliver(shopA, foreign);
    await settle();
    expect(await payments(a.organizationId)).toEqual([]);
    expect(await payments(b.organizationId)).toEqual([]);
    expect(await requests(a.organizationId)).toEqual([]);

    // An agent may not turn it off (owners and admins only): sent to the refusal page, nothing changed.
    await rawQuery(`update users set org_role = 'agent' where id = $1`, [a.user.user.id]);
    const refused = await askPayment(a, false);
    expect([refused.status, refused.location]).toEqual([302, "/unauthorized"]);
    const [setting] = await rawQuery<{ ask_payment: boolean }>(`select ask_payment from shopify_settings where organization_id = $1`, [
      a.organizationId,
    ]);
    expect(setting!.ask_payment).toBe(true);
  });
});
