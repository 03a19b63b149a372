import { z } from "zod";
import { getOrder, listOrders, type OrderView } from "../../domains/shop";
import { ORDER_STATUSES } from "../../infrastructure/db/schema";
import { ApiProblem } from "./problem";

/** The shop's orders in /api/v1 (decision 138): read-only, the same as the Orders page. */

export const ORDER_NOT_FOUND = "No order with this id in your organisation: unknown, malformed or another's.";

const OrderItem = z.object({
  sku: z.string().describe("The product's SKU (Meta's product_retailer_id)."),
  productId: z.string().nullable().describe("The product in Jumbe, when the SKU is one of yours (null otherwise or once removed)."),
  name: z.string().describe("The product's name when the order came."),
  quantity: z.number().int().describe("How many the customer ordered."),
  unitPriceCents: z.number().int().describe("The unit price in cents, from your product list (the cart's price for an unknown SKU)."),
  currency: z.string().describe("ISO 4217, KES."),
});

export const Order = z
  .object({
    id: z.string().describe("The order's id (a UUID)."),
    status: z.enum(ORDER_STATUSES).describe("received, awaiting_payment, paid or cancelled."),
    totalCents: z.number().int().describe("The sum of the items' quantity × unit price, in cents."),
    currency: z.string().describe("ISO 4217, KES."),
    note: z.string().describe("The customer's note with the cart (may be empty)."),
    catalogId: z.string().describe("Meta's catalog the cart came from."),
    receivedAt: z.string().describe("When the customer sent the cart (ISO 8601)."),
    contact: z
      .object({ id: z.string(), name: z.string().nullable(), phone: z.string().nullable() })
      .nullable()
      .describe("The customer (null once the contact is deleted)."),
    conversationId: z.string().nullable().describe("The inbox conversation the cart arrived in."),
    paymentRequestId: z.string().nullable().describe("The payment request asking for this order's total, once one is sent."),
    items: z.array(OrderItem),
  })
  .meta({ id: "Order" });

export const OrderList = z
  .object({
    data: z.array(Order).describe("Newest first."),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
  })
  .meta({ id: "OrderList" });

/** base64url of "<receivedAt ISO>~<id>" (the last order of a page), or null for anything else. */
function decodeCursor(cursor: string) {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("~");
  return at && id && /^[0-9a-f-]{36}$/i.test(id) && !Number.isNaN(Date.parse(at)) ? { receivedAt: at, id } : null;
}

export const OrdersQuery = z
  .object({
    status: z.enum(ORDER_STATUSES).optional().describe("Only orders in this status."),
    cursor: z
      .string()
      .refine((value) => decodeCursor(value) !== null, "not a cursor of this list: pass nextCursor from the previous page")
      .optional()
      .describe("nextCursor from the previous page."),
    limit: z.coerce.number().int().min(1).max(100).default(50).describe("Orders a page, 1 to 100 (default 50)."),
  })
  .strict();

export const OrderIdParams = z.object({ id: z.string().describe("The order's id (a UUID).") });

const apiOrder = (o: OrderView): z.input<typeof Order> => ({
  id: o.id,
  status: o.status,
  totalCents: o.totalCents,
  currency: o.currency,
  note: o.note,
  catalogId: o.catalogId,
  receivedAt: o.receivedAt,
  contact: o.contact,
  conversationId: o.conversationId,
  paymentRequestId: o.paymentRequestId,
  items: o.items.map((i) => ({
    sku: i.retailerId,
    productId: i.productId,
    name: i.name,
    quantity: i.quantity,
    unitPriceCents: i.unitPriceCents,
    currency: i.currency,
  })),
});

const encode = (o: OrderView) => Buffer.from(`${o.receivedAt}~${o.id}`).toString("base64url");

export async function listApiOrders(organizationId: string, query: z.output<typeof OrdersQuery>) {
  const rows = await listOrders(organizationId, {
    status: query.status,
    before: query.cursor ? (decodeCursor(query.cursor) ?? undefined) : undefined,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  return { data: page.map(apiOrder), nextCursor: more ? encode(page[page.length - 1]!) : null, hasMore: more };
}

export async function getApiOrder(organizationId: string, id: string) {
  const order = await getOrder(organizationId, id);
  if (!order) throw new ApiProblem(404, "not_found", ORDER_NOT_FOUND);
  return apiOrder(order);
}
