import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { createPaymentRequest, type ClosedRequest } from "../payments";
import { orderTotal } from "./orders";
import { refuseShop, type ShopActor } from "./products";
import { m } from "~/paraglide/messages";

/**
 * A cart turned into a payment request (issue 76, decision 138): the order's total asked of the
 * customer who sent it, in their conversation, on the organisation's default shortcode. M-Pesa takes
 * whole shillings, so a total with cents is rounded up. An order has at most one request open or
 * paid: the check and the link are made under the order's row lock, in the transaction that stores
 * the request and its message, so two clicks at once send one request.
 */
export async function requestOrderPayment(
  actor: ShopActor,
  orderId: string,
  conversationId: string,
  /**
   * Run first in the request's transaction (createPaymentRequest's `gate`): the order automation's
   * reply gate (a person holding the conversation keeps the bot quiet); a throw stores and sends nothing.
   */
  gate?: (tx: Executor) => Promise<void>,
) {
  const order = await orderTotal(actor.organizationId, orderId);
  if (!order || order.conversationId !== conversationId) throw refuseShop(404, m.shop_order_not_found(), "form");
  if (order.status !== "received") throw refuseShop(409, m.shop_order_pay_already(), "form");
  const reference = `ORD${orderId.replace(/-/g, "").slice(0, 8).toUpperCase()}`;
  return createPaymentRequest(
    { organizationId: actor.organizationId, userId: actor.userId },
    conversationId,
    { amount: Math.ceil(order.totalCents / 100), description: m.shop_order_pay_description({ reference }), reference },
    {
      source: "order",
      sourceId: orderId,
      gate,
      withRequest: (tx, requestId) => takeRequest(tx, actor.organizationId, orderId, requestId),
    },
  );
}

/** Under the order's lock: a received order with no request open or paid takes this one. */
async function takeRequest(tx: Executor, organizationId: string, orderId: string, requestId: string) {
  const [order] = await queryRows<{ status: string }>(
    tx,
    sql`select status from orders where organization_id = ${organizationId} and id = ${orderId} for update`,
  );
  if (!order) throw refuseShop(404, m.shop_order_not_found(), "form");
  if (order.status !== "received") throw refuseShop(409, m.shop_order_pay_already(), "form");
  await tx.execute(sql`
    update orders set status = 'awaiting_payment', payment_request_id = ${requestId}, updated_at = now()
    where organization_id = ${organizationId} and id = ${orderId}`);
}

/**
 * A request closed (payments announces it in its own transaction): its order is paid, or, when it
 * expired unpaid, back to received so the team can ask again.
 */
export async function settleOrderOfRequest(tx: Executor, closed: ClosedRequest) {
  if (closed.outcome === "paid")
    await tx.execute(sql`
      update orders set status = 'paid', updated_at = now()
      where organization_id = ${closed.organizationId} and payment_request_id = ${closed.requestId} and status <> 'cancelled'`);
  else
    await tx.execute(sql`
      update orders set status = 'received', payment_request_id = null, updated_at = now()
      where organization_id = ${closed.organizationId} and payment_request_id = ${closed.requestId} and status = 'awaiting_payment'`);
}
