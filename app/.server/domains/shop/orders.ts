import { and, asc, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { contacts, orderItems, orders, products, type OrderStatus } from "../../infrastructure/db/schema";
import { isUuid } from "../../infrastructure/db/keyset";

/**
 * Orders: the carts customers send from a product message (Meta's inbound `order` message, reference
 * commerce §1.6). One cart message is one order however often the webhook repeats (the unique
 * organisation + wamid). Prices come from the organisation's own products where it knows the SKU
 * (the reference: compute totals from your own price list), else from the cart; the items always
 * sum to the total.
 */

export const ORDERS_PAGE = 50;
/** The most items of one cart kept (Meta's carts hold far fewer). */
const ITEMS_MAX = 100;

/** One `order` message as the webhook writer hands it over, inside its transaction. */
export interface InboundOrder {
  organizationId: string;
  contactId: string | null;
  conversationId: string | null;
  messageId: string;
  wamid: string;
  /** Meta's `order` object, as received. */
  order: unknown;
  receivedAt: string;
}

interface CartLine {
  retailerId: string;
  quantity: number;
  /** Cents, from the cart's major units. */
  cartPriceCents: number;
  currency: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The cart's lines, or null when it is not a cart (no catalog, no readable item). */
export function readCart(order: unknown): { catalogId: string; note: string; lines: CartLine[] } | null {
  if (!isObject(order) || typeof order.catalog_id !== "string" || !Array.isArray(order.product_items)) return null;
  const lines = order.product_items.slice(0, ITEMS_MAX).flatMap((item): CartLine[] => {
    if (!isObject(item) || typeof item.product_retailer_id !== "string" || !item.product_retailer_id) return [];
    const quantity = Number(item.quantity);
    const price = Number(item.item_price);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 100_000 || !Number.isFinite(price) || price < 0) return [];
    return [
      {
        retailerId: item.product_retailer_id.slice(0, 100),
        quantity,
        cartPriceCents: Math.round(price * 100),
        currency: typeof item.currency === "string" && /^[A-Z]{3}$/.test(item.currency) ? item.currency : "KES",
      },
    ];
  });
  if (!lines.length) return null;
  return { catalogId: order.catalog_id.slice(0, 64), note: typeof order.text === "string" ? order.text.slice(0, 1024) : "", lines };
}

/** An order stored for the first time (a repeated webhook stores none). */
export interface NewOrder {
  id: string;
  organizationId: string;
  conversationId: string | null;
}

/** Stores the batch's carts as orders, each once; in the webhook's transaction. Answers the orders new to it. */
export async function recordInboundOrders(tx: Executor, list: InboundOrder[]): Promise<NewOrder[]> {
  const stored: NewOrder[] = [];
  for (const inbound of list) {
    const cart = readCart(inbound.order);
    if (!cart) continue;
    const known = await tx
      .select({
        id: products.id,
        retailerId: products.retailerId,
        name: products.name,
        priceCents: products.priceCents,
        currency: products.currency,
      })
      .from(products)
      .where(
        and(
          eq(products.organizationId, inbound.organizationId),
          inArray(
            products.retailerId,
            cart.lines.map((l) => l.retailerId),
          ),
        ),
      );
    const bySku = new Map(known.map((p) => [p.retailerId, p]));
    const items = cart.lines.map((line, position) => {
      const product = bySku.get(line.retailerId);
      return {
        position,
        retailerId: line.retailerId,
        productId: product?.id ?? null,
        name: product?.name ?? line.retailerId,
        quantity: line.quantity,
        unitPriceCents: product?.priceCents ?? line.cartPriceCents,
        currency: product?.currency ?? line.currency,
      };
    });
    const [order] = await tx
      .insert(orders)
      .values({
        organizationId: inbound.organizationId,
        contactId: inbound.contactId,
        conversationId: inbound.conversationId,
        messageId: inbound.messageId,
        wamid: inbound.wamid,
        catalogId: cart.catalogId,
        note: cart.note,
        totalCents: items.reduce((sum, i) => sum + i.quantity * i.unitPriceCents, 0),
        currency: items[0]!.currency,
        receivedAt: new Date(inbound.receivedAt),
      })
      .onConflictDoNothing({ target: [orders.organizationId, orders.wamid] })
      .returning({ id: orders.id });
    if (!order) continue;
    await tx.insert(orderItems).values(items.map((i) => ({ ...i, orderId: order.id })));
    stored.push({ id: order.id, organizationId: inbound.organizationId, conversationId: inbound.conversationId });
  }
  return stored;
}

export interface OrderLine {
  retailerId: string;
  productId: string | null;
  name: string;
  quantity: number;
  unitPriceCents: number;
  currency: string;
}

export interface OrderView {
  id: string;
  status: OrderStatus;
  totalCents: number;
  currency: string;
  note: string;
  catalogId: string;
  receivedAt: string;
  contact: { id: string; name: string | null; phone: string | null } | null;
  conversationId: string | null;
  paymentRequestId: string | null;
  items: OrderLine[];
}

export interface OrderFilter {
  status?: OrderStatus;
  /** Keyset: orders received before this one (its received_at and id). */
  before?: { receivedAt: string; id: string };
  limit?: number;
}

const orderColumns = {
  id: orders.id,
  status: orders.status,
  totalCents: orders.totalCents,
  currency: orders.currency,
  note: orders.note,
  catalogId: orders.catalogId,
  receivedAt: orders.receivedAt,
  conversationId: orders.conversationId,
  paymentRequestId: orders.paymentRequestId,
  contactId: contacts.id,
  contactName: contacts.name,
  contactPhone: contacts.phone,
};

async function withItems(rows: { [K in keyof typeof orderColumns]: unknown }[]): Promise<OrderView[]> {
  const ids = rows.map((r) => String(r.id));
  const items = ids.length
    ? await db()
        .select()
        .from(orderItems)
        .where(inArray(orderItems.orderId, ids))
        .orderBy(asc(orderItems.orderId), asc(orderItems.position))
    : [];
  return rows.map((r) => ({
    id: String(r.id),
    status: r.status as OrderStatus,
    totalCents: Number(r.totalCents),
    currency: String(r.currency),
    note: String(r.note),
    catalogId: String(r.catalogId),
    receivedAt: (r.receivedAt as Date).toISOString(),
    contact: r.contactId
      ? { id: String(r.contactId), name: (r.contactName as string | null) ?? null, phone: (r.contactPhone as string | null) ?? null }
      : null,
    conversationId: (r.conversationId as string | null) ?? null,
    paymentRequestId: (r.paymentRequestId as string | null) ?? null,
    items: items
      .filter((i) => i.orderId === r.id)
      .map((i) => ({
        retailerId: i.retailerId,
        productId: i.productId,
        name: i.name,
        quantity: i.quantity,
        unitPriceCents: i.unitPriceCents,
        currency: i.currency,
      })),
  }));
}

/** The organisation's orders, newest first, with their items. */
export async function listOrders(organizationId: string, filter: OrderFilter = {}): Promise<OrderView[]> {
  const conditions: SQL[] = [eq(orders.organizationId, organizationId)];
  if (filter.status) conditions.push(eq(orders.status, filter.status));
  if (filter.before && isUuid(filter.before.id)) {
    const at = new Date(filter.before.receivedAt);
    conditions.push(or(lt(orders.receivedAt, at), and(eq(orders.receivedAt, at), lt(orders.id, filter.before.id)))!);
  }
  const rows = await db()
    .select(orderColumns)
    .from(orders)
    .leftJoin(contacts, eq(contacts.id, orders.contactId))
    .where(and(...conditions))
    .orderBy(desc(orders.receivedAt), desc(orders.id))
    .limit(Math.min(filter.limit ?? ORDERS_PAGE, 1000));
  return withItems(rows);
}

/** One order of the organisation; null for an unknown or another organisation's id. */
export async function getOrder(organizationId: string, id: string): Promise<OrderView | null> {
  if (!isUuid(id)) return null;
  const rows = await db()
    .select(orderColumns)
    .from(orders)
    .leftJoin(contacts, eq(contacts.id, orders.contactId))
    .where(and(eq(orders.organizationId, organizationId), eq(orders.id, id)));
  return (await withItems(rows))[0] ?? null;
}

/**
 * What a payment request for the order asks: its total, currency and the customer (for helper B's
 * "request payment for this cart", wired at merge). Null for an unknown or another organisation's id.
 */
export async function orderTotal(organizationId: string, orderId: string) {
  const order = await getOrder(organizationId, orderId);
  if (!order) return null;
  return {
    orderId: order.id,
    totalCents: order.totalCents,
    currency: order.currency,
    contactId: order.contact?.id ?? null,
    phone: order.contact?.phone ?? null,
    conversationId: order.conversationId,
    status: order.status,
  };
}

/** Moves an order on (awaiting_payment with its payment request, paid, cancelled): for the payments work at merge. */
export async function setOrderStatus(organizationId: string, orderId: string, status: OrderStatus, paymentRequestId?: string) {
  if (!isUuid(orderId)) return false;
  const updated = await db()
    .update(orders)
    .set({ status, updatedAt: new Date(), ...(paymentRequestId ? { paymentRequestId } : {}) })
    .where(and(eq(orders.organizationId, organizationId), eq(orders.id, orderId)))
    .returning({ id: orders.id });
  return updated.length > 0;
}

/** The carts of the given inbound messages, for the inbox thread's cards. */
export async function cartsOfMessages(organizationId: string, messageIds: string[]) {
  if (!messageIds.length)
    return new Map<string, { orderId: string; totalCents: number; currency: string; status: OrderStatus; items: OrderLine[] }>();
  const rows = await db()
    .select({ ...orderColumns, messageId: orders.messageId })
    .from(orders)
    .leftJoin(contacts, eq(contacts.id, orders.contactId))
    .where(and(eq(orders.organizationId, organizationId), inArray(orders.messageId, messageIds)));
  const views = await withItems(rows);
  return new Map(
    rows.map((r, i) => [
      String(r.messageId),
      {
        orderId: views[i]!.id,
        totalCents: views[i]!.totalCents,
        currency: views[i]!.currency,
        status: views[i]!.status,
        items: views[i]!.items,
      },
    ]),
  );
}

/** How many orders the organisation has by status (the page's filter counts). */
export async function orderCounts(organizationId: string) {
  const rows = await db()
    .select({ status: orders.status, count: sql<number>`count(*)::int` })
    .from(orders)
    .where(eq(orders.organizationId, organizationId))
    .groupBy(orders.status);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)])) as Partial<Record<OrderStatus, number>>;
}
