import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expireRequests } from "~/.server/domains/payments/requests/check";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { action as threadAction, loader as threadLoader } from "~/routes/app/chat/conversation";
import { signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest, refusalOf } from "../support/http";
import { attemptsOf, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76: the cart a customer sent turned into a payment request, asked once, and the order paid with it.
const h = paymentRequestsHarnessForFile();

type Tenant = Awaited<ReturnType<typeof h.tenant>>;

/** An order as an inbound cart leaves it: KES 1,250.50 (rounded up to 1,251 for M-Pesa). */
async function orderIn(t: Tenant, conversationId: string) {
  const id = randomUUID();
  await rawQuery(
    `insert into orders (id, organization_id, contact_id, conversation_id, wamid, catalog_id, total_cents)
     select $1::uuid, v.organization_id, v.contact_id, v.id, $3, 'catalog-1', 125050 from conversations v where v.id = $2::uuid`,
    [id, conversationId, `wamid.${id}`],
  );
  return id;
}

const orderRow = async (id: string) =>
  (
    await rawQuery<{ status: string; payment_request_id: string | null }>(`select status, payment_request_id from orders where id = $1`, [
      id,
    ])
  )[0]!;

describe("an order's payment", () => {
  it("is asked once for two clicks at once, and the order is paid with its request", async () => {
    const t = await h.tenant("Duka la Oda");
    const from = "254711000000"; // the M-Pesa sandbox pays at once
    const conversationId = await h.customerWrites(t, from);
    const orderId = await orderIn(t, conversationId);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const ask = () =>
      callRoute(threadAction, formRequest(`/chat/${conversationId}`, { intent: "order-payment", orderId }, { cookie }), {
        id: conversationId,
      });
    const answers = await Promise.all([ask(), ask()]);
    expect(answers.map((a) => a.status).sort()).toEqual([302, 409]);
    expect(refusalOf(answers.find((a) => a.status === 409)!).errors.form).toBe("This order has already been asked for, or is paid.");
    const requests = await rawQuery<{ id: string; amount_kes: number; source: string; source_id: string; reference: string }>(
      `select id, amount_kes, source, source_id, reference from payment_requests where organization_id = $1`,
      [t.organizationId],
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ amount_kes: 1251, source: "order", source_id: orderId });
    expect(await orderRow(orderId)).toEqual({ status: "awaiting_payment", payment_request_id: requests[0]!.id });
    // Asked again later: refused, nothing more sent.
    expect((await ask()).status).toBe(409);

    await h.tap(t, from, requests[0]!.id, "pay");
    await until(
      () => requestRow(requests[0]!.id),
      (r) => r.status === "paid",
    );
    expect((await orderRow(orderId)).status).toBe("paid");
    expect(await attemptsOf(requests[0]!.id)).toHaveLength(1);
    const page = await callRoute(threadLoader, getRequest(`/chat/${conversationId}`, { cookie }), { id: conversationId });
    expect(JSON.stringify(page.data)).toContain('"status":"paid"');
  });

  it("is not asked for an order of another conversation or tenant, and an expired request frees the order", async () => {
    const t = await h.tenant("Duka la Pili");
    const other = await h.tenant("Duka la Jirani");
    const conversationId = await h.customerWrites(t, "254722600001");
    const foreignConversation = await h.customerWrites(other, "254722600002");
    const foreignOrder = await orderIn(other, foreignConversation);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const ask = (orderId: string) =>
      callRoute(threadAction, formRequest(`/chat/${conversationId}`, { intent: "order-payment", orderId }, { cookie }), {
        id: conversationId,
      });
    const refused = await ask(foreignOrder);
    expect(refused.status).toBe(404);
    expect((await ask("not-an-id")).status).toBe(404);
    expect(await orderRow(foreignOrder)).toEqual({ status: "received", payment_request_id: null });
    expect(
      await rawQuery(`select id from payment_requests where organization_id in ($1, $2)`, [t.organizationId, other.organizationId]),
    ).toEqual([]);

    const orderId = await orderIn(t, conversationId);
    expect((await ask(orderId)).status).toBe(302);
    const { payment_request_id: requestId } = await orderRow(orderId);
    await rawQuery(`update payment_requests set expires_at = now() - interval '1 minute' where id = $1`, [requestId]);
    expect(await expireRequests()).toBe(1);
    expect((await requestRow(requestId!)).status).toBe("expired");
    expect(await orderRow(orderId)).toEqual({ status: "received", payment_request_id: null });
  });
});
