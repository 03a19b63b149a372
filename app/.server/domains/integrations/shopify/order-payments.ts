import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { isRefusal } from "../../../infrastructure/refusal";
import { createPaymentRequest, type ClosedRequest } from "../../payments";
import { customerPhoneOf, orderNumberOf } from "./fields";
import { m } from "~/paraglide/messages";

/**
 * A Shopify order waiting for its payment (cash on delivery, a manual payment) asked of its customer
 * by M-Pesa (issue 76, decision 142), when the business turned it on. The orders/create event's job
 * notes the order (`asking`) before its template goes, then asks: the customer's conversation, the
 * total in whole shillings, a reference from the order's name, source `shopify`, and the idempotency
 * key `shopify-order:<shop>:<id>`, so a redelivered webhook or a retried job asks once. When the
 * request is paid a queued job marks the order paid in the shop (mark-paid.ts); expired or cancelled,
 * the shop's order stays pending.
 */

type Json = Record<string, unknown>;

interface OrderEvent {
  id: string;
  organization_id: string;
  shop: string;
  payload: Json;
}

/** Why no request went (stored as the code; the events list says it in words). */
export const ORDER_PAYMENT_REASONS = [
  "currency_not_kes",
  "no_amount",
  "no_phone",
  "no_conversation",
  "no_shortcode",
  "outside_window",
  "no_balance",
  "refused",
  "mark_scope",
  "mark_refused",
  "mark_not_connected",
] as const;
export type OrderPaymentReason = (typeof ORDER_PAYMENT_REASONS)[number];

const orderIdOf = (payload: Json) =>
  typeof payload.id === "number" && Number.isSafeInteger(payload.id) && payload.id > 0
    ? String(payload.id)
    : typeof payload.id === "string" && /^[1-9]\d{0,19}$/.test(payload.id)
      ? payload.id
      : null;

/** The orders/create events of organisations that ask, for orders whose payment is pending: noted `asking` once per order. */
export async function noteOrdersToAsk(events: OrderEvent[]) {
  const pending = events
    .map((e) => ({ e, orderId: orderIdOf(e.payload) }))
    .filter((x): x is { e: OrderEvent; orderId: string } => x.orderId !== null && x.e.payload.financial_status === "pending");
  if (!pending.length) return;
  await db().execute(sql`
    insert into shopify_order_payments (organization_id, shop, order_id, event_row_id, reference)
    select i.organization_id, i.shop, i.order_id, i.event_id, i.reference
    from unnest(${sql.param(pending.map((x) => x.e.organization_id))}::uuid[], ${sql.param(pending.map((x) => x.e.shop))}::text[],
                ${sql.param(pending.map((x) => x.orderId))}::text[], ${sql.param(pending.map((x) => x.e.id))}::uuid[],
                ${sql.param(pending.map((x) => orderNumberOf(x.e.payload)))}::text[]) as i(organization_id, shop, order_id, event_id, reference)
    join shopify_settings s on s.organization_id = i.organization_id and s.ask_payment
    on conflict (organization_id, shop, order_id) do nothing`);
}

interface Asking {
  id: string;
  organization_id: string;
  shop: string;
  order_id: string;
  reference: string | null;
  payload: Json;
}

/** The orders these events noted and not yet asked for (a retried job finds them again): each asked, or refused with its reason. */
export async function askForOrderPayments(eventIds: string[]) {
  if (!eventIds.length) return;
  const rows = await queryRows<Asking>(
    db(),
    sql`select p.id, p.organization_id, p.shop, p.order_id, p.reference, e.payload
        from shopify_order_payments p join shopify_events e on e.id = p.event_row_id and e.organization_id = p.organization_id
        where p.event_row_id = any(${sql.param(eventIds)}::uuid[]) and p.status = 'asking'`,
  );
  for (const row of rows) await askOne(row);
}

/** The order's total in whole shillings (M-Pesa takes no cents: rounded up), or why it cannot be asked. */
export function amountOf(payload: Json): { amountKes: number } | { reason: OrderPaymentReason } {
  const currency = typeof payload.currency === "string" ? payload.currency : "KES";
  if (currency !== "KES") return { reason: "currency_not_kes" };
  const total = Number(typeof payload.total_price === "string" || typeof payload.total_price === "number" ? payload.total_price : NaN);
  if (!Number.isFinite(total) || total <= 0) return { reason: "no_amount" };
  return { amountKes: Math.ceil(Math.round(total * 100) / 100) };
}

/** `#1001` → `SHOP1001`: letters and digits only, at most 12 (M-Pesa's AccountReference). */
export function referenceOfOrder(name: string | null, orderId: string) {
  const digits = (name ?? "").replace(/[^A-Za-z0-9]/g, "").toUpperCase();
  return (digits ? `SHOP${digits}` : `SHOP${orderId}`).slice(0, 12);
}

async function conversationOf(organizationId: string, phone: string) {
  const [row] = await queryRows<{ id: string }>(
    db(),
    sql`select v.id from conversations v join contacts c on c.id = v.contact_id
        where v.organization_id = ${organizationId} and c.phone = ${phone}
        order by v.last_message_at desc nulls last, v.created_at desc limit 1`,
  );
  return row?.id ?? null;
}

async function askOne(row: Asking) {
  const amount = amountOf(row.payload);
  if ("reason" in amount) return refuse(row.id, amount.reason);
  const phone = customerPhoneOf(row.payload);
  if (!phone) return refuse(row.id, "no_phone");
  const conversationId = await conversationOf(row.organization_id, phone);
  if (!conversationId) return refuse(row.id, "no_conversation");
  const order = row.reference ?? `#${row.order_id}`;
  try {
    await createPaymentRequest(
      { organizationId: row.organization_id, userId: null },
      conversationId,
      {
        amount: amount.amountKes,
        description: m.shopify_pay_description({ order }),
        reference: referenceOfOrder(row.reference, row.order_id),
      },
      {
        source: "shopify",
        sourceId: row.order_id,
        idempotencyKey: `shopify-order:${row.shop}:${row.order_id}`,
        withRequest: (tx, requestId) => requested(tx, row.id, requestId, amount.amountKes),
      },
    );
    // A request made before (the same key): linked now if its transaction did not.
    await db().execute(sql`
      update shopify_order_payments p set status = 'requested', payment_request_id = r.id, amount_kes = r.amount_kes, updated_at = now()
      from payment_requests r
      where p.id = ${row.id} and p.status = 'asking' and r.organization_id = p.organization_id
        and r.idempotency_key = ${`shopify-order:${row.shop}:${row.order_id}`}`);
  } catch (error) {
    if (!isRefusal(error)) throw error;
    await refuse(row.id, reasonOfRefusal(error.code));
  }
}

async function requested(tx: Executor, id: string, requestId: string, amountKes: number) {
  await tx.execute(sql`
    update shopify_order_payments set status = 'requested', payment_request_id = ${requestId}, amount_kes = ${amountKes}, updated_at = now()
    where id = ${id}`);
}

function reasonOfRefusal(code: string): OrderPaymentReason {
  if (code === "unknown_shortcode") return "no_shortcode";
  if (code === "outside_service_window") return "outside_window";
  if (code === "insufficient_balance") return "no_balance";
  if (code === "no_phone" || code === "invalid_phone_number") return "no_phone";
  return "refused";
}

async function refuse(id: string, reason: OrderPaymentReason) {
  await db().execute(sql`
    update shopify_order_payments set status = 'refused', reason = ${reason}, updated_at = now() where id = ${id} and status = 'asking'`);
}

/** The queue that marks a paid order paid in its shop. */
export const SHOPIFY_MARK_PAID_QUEUE = "shopify.mark-paid";

/**
 * A request closed (payments announces it in its own transaction): a Shopify order's request paid
 * queues the job that tells the shop (never the shop's call inside the payment's transaction);
 * expired or cancelled, the order is left pending in the shop, and said so on the events list.
 */
export async function shopifyOrderPaymentClosed(tx: Executor, closed: ClosedRequest) {
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`update shopify_order_payments set status = ${closed.outcome}, updated_at = now()
        where organization_id = ${closed.organizationId} and payment_request_id = ${closed.requestId} and status = 'requested'
        returning id`,
  );
  if (row && closed.outcome === "paid")
    await enqueueJob(SHOPIFY_MARK_PAID_QUEUE, { id: row.id }, { executor: tx, uniqueKey: `shopify-mark-paid:${row.id}` });
}

/** An order's payment in words, for the events list: what was asked and what came of it. */
export function orderPaymentWords(status: string, reason: string | null, amountKes: number | null): string {
  const amount = amountKes === null ? "" : amountKes.toLocaleString("en-KE");
  switch (status) {
    case "asking":
      return m.shopify_pay_status_asking();
    case "requested":
      return m.shopify_pay_status_requested({ amount });
    case "paid":
      return m.shopify_pay_status_paid({ amount });
    case "marked":
      return m.shopify_pay_status_marked({ amount });
    case "mark_failed":
      return m.shopify_pay_status_mark_failed({ reason: reasonWords(reason) });
    case "expired":
      return m.shopify_pay_status_expired();
    case "cancelled":
      return m.shopify_pay_status_cancelled();
    default:
      return m.shopify_pay_status_refused({ reason: reasonWords(reason) });
  }
}

function reasonWords(reason: string | null): string {
  switch (reason as OrderPaymentReason) {
    case "currency_not_kes":
      return m.shopify_pay_reason_currency_not_kes();
    case "no_amount":
      return m.shopify_pay_reason_no_amount();
    case "no_phone":
      return m.shopify_pay_reason_no_phone();
    case "no_conversation":
      return m.shopify_pay_reason_no_conversation();
    case "no_shortcode":
      return m.shopify_pay_reason_no_shortcode();
    case "outside_window":
      return m.shopify_pay_reason_outside_window();
    case "no_balance":
      return m.shopify_pay_reason_no_balance();
    case "mark_scope":
      return m.shopify_pay_reason_mark_scope();
    case "mark_not_connected":
      return m.shopify_pay_reason_mark_not_connected();
    case "mark_refused":
      return m.shopify_pay_reason_mark_refused();
    default:
      return m.shopify_pay_reason_refused();
  }
}
