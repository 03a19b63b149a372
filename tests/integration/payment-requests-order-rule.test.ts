import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { lockConversations } from "~/.server/domains/messaging";
import { askOrderPayment } from "~/.server/domains/automations/order-payment";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { action as automationsAction, loader as automationsLoader } from "~/routes/app/automations/index";
import { signedInCookie } from "../support/accounts";
import { personTakesOverDuring } from "../support/person-takes-over";
import { callRoute, formRequest, getRequest } from "../support/http";
import { paymentRequestsHarnessForFile, until } from "../support/payment-requests-harness";

// Issue 76 (decision 139): the automation "when a cart arrives, ask for its total by M-Pesa": one
// request per order however often WhatsApp repeats the webhook; off, nothing is asked.
const h = paymentRequestsHarnessForFile();
type Tenant = Awaited<ReturnType<typeof h.tenant>>;

const cart = (items: [string, number, number][]) => ({
  catalogId: "catalog-rule",
  text: "",
  items: items.map(([retailerId, quantity, itemPrice]) => ({ retailerId, quantity, itemPrice, currency: "KES" })),
});

const ordersOf = (organizationId: string) =>
  rawQuery<{ id: string; status: string; payment_request_id: string | null }>(
    `select id, status, payment_request_id from orders where organization_id = $1 order by received_at`,
    [organizationId],
  );
const requestsOf = (organizationId: string) =>
  rawQuery<{ id: string; amount_kes: number; source: string; source_id: string }>(
    `select id, amount_kes, source, source_id from payment_requests where organization_id = $1 order by created_at`,
    [organizationId],
  );

async function turn(t: Tenant, enabled: "on" | "off") {
  const cookie = await signedInCookie(t.user.email, t.user.password);
  const answer = await callRoute(automationsAction, formRequest("/automations", { intent: "order-payment", enabled }, { cookie }), {});
  expect(answer.status).toBe(302);
  const page = await callRoute(automationsLoader, getRequest("/automations", { cookie }), {});
  expect((page.data as { orderPayment: boolean }).orderPayment).toBe(enabled === "on");
}

/** The customer sends a cart, its webhook delivered three times. */
async function orderArrives(t: Tenant, from: string, items: [string, number, number][]) {
  h.meta.sandbox.setDeliveryChaos({ duplicate: 2 });
  await h.meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from, name: "Amina Wanjiku", type: "order", order: cart(items) });
  h.meta.sandbox.setDeliveryChaos({});
  await h.meta.sandbox.flushWebhooks();
}

describe("the order payment automation", () => {
  it("asks once for a cart's total however often the webhook repeats, and not when it is off", async () => {
    const t = await h.tenant("Duka la Oda Otomatiki");
    const from = "254722900001";
    await h.customerWrites(t, from);
    await turn(t, "on");

    await orderArrives(t, from, [
      ["KIKOI-1", 2, 1200],
      ["SANDAL-9", 1, 320.5],
    ]);
    const [order] = await until(
      () => ordersOf(t.organizationId),
      (rows) => rows.length === 1 && rows[0]!.status === "awaiting_payment",
    );
    await drainJobs();
    const requests = await requestsOf(t.organizationId);
    expect(requests).toEqual([{ id: order!.payment_request_id, amount_kes: 2721, source: "order", source_id: order!.id }]);

    await turn(t, "off");
    await orderArrives(t, from, [["KIKOI-1", 1, 1200]]);
    await until(
      () => ordersOf(t.organizationId),
      (rows) => rows.length === 2,
    );
    await drainJobs();
    expect((await ordersOf(t.organizationId))[1]).toMatchObject({ status: "received", payment_request_id: null });
    expect(await requestsOf(t.organizationId)).toHaveLength(1);
  });

  it("asks nothing while a person holds the conversation", async () => {
    const t = await h.tenant("Duka la Mtu");
    const from = "254722900002";
    const conversationId = await h.customerWrites(t, from);
    // A person holds it (as an agent's reply makes it), under the conversation's lock as the house requires.
    await db().transaction(async (tx) => {
      await lockConversations(tx, [conversationId]);
      await tx.execute(sql`update conversations set person_held_at = now() where id = ${conversationId}`);
    });
    await turn(t, "on");
    await orderArrives(t, from, [["KIKOI-1", 1, 900]]);
    await until(
      () => ordersOf(t.organizationId),
      (rows) => rows.length === 1,
    );
    await drainJobs();
    expect((await ordersOf(t.organizationId))[0]!.status).toBe("received");
    expect(await requestsOf(t.organizationId)).toEqual([]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("the order automation and a person taking over at the same moment", () => {
  it("waits on the conversation's lock in the request's transaction, reads the hold, and asks nothing", async () => {
    const t = await h.tenant("Duka la Mkono");
    const from = "254722900003";
    const conversationId = await h.customerWrites(t, from);
    // The cart arrives while the automation is off (no job of its own), then it is turned on and its job runs now.
    await orderArrives(t, from, [["KIKOI-1", 1, 700]]);
    const [order] = await until(
      () => ordersOf(t.organizationId),
      (rows) => rows.length === 1,
    );
    await turn(t, "on");
    // The job's first read sees nobody holding the conversation (the person has not committed): only
    // the gate in the request's own transaction, after the lock, can see the hold.
    await personTakesOverDuring(conversationId, () =>
      askOrderPayment({ organizationId: t.organizationId, orderId: order!.id, conversationId }),
    );
    expect(await requestsOf(t.organizationId)).toEqual([]);
    expect((await ordersOf(t.organizationId))[0]).toMatchObject({ status: "received", payment_request_id: null });
    const [sent] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from messages where organization_id = $1 and recipient_phone = $2 and direction = 'outbound'`,
      [t.organizationId, `+${from}`],
    );
    expect(sent!.n).toBe(0);
  });
});
