import { and, eq } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { contacts, conversations, orderItems, orders, products } from "../infrastructure/db/schema";
import { queueProductSync } from "../domains/shop";

/**
 * The demo Sacco's shop (decision 138): a few member offers, queued for the sandbox's catalog as
 * any new product is (the server's workers push them, and the catalog is made on the first), and
 * one past order of a member's, its items summing to its total.
 */

const DEMO_PRODUCTS = [
  {
    retailerId: "NYOTA-UMBRELLA",
    name: "Nyota Sacco umbrella",
    description: "A large golf umbrella in Nyota blue, for members.",
    priceCents: 120000,
    imageUrl: "https://demo.jumbe.co.ke/shop/umbrella.jpg",
  },
  {
    retailerId: "SOLAR-LAMP",
    name: "Solar lamp (member offer)",
    description: "A solar lamp with a phone charger, paid over three months.",
    priceCents: 349950,
    imageUrl: "https://demo.jumbe.co.ke/shop/solar-lamp.jpg",
  },
  {
    retailerId: "PASSBOOK-COVER",
    name: "Passbook cover",
    description: "A leather cover for the savings passbook.",
    priceCents: 45000,
    imageUrl: "https://demo.jumbe.co.ke/shop/passbook-cover.jpg",
  },
] as const;

export async function seedShop(organizationId: string, now: number) {
  const saved = await db()
    .insert(products)
    .values(DEMO_PRODUCTS.map((p) => ({ organizationId, ...p })))
    .returning();
  for (const p of saved) await queueProductSync(db(), organizationId, p.id);

  // Wanjiku's cart of three days ago: two umbrellas and a passbook cover, from her conversation.
  const [customer] = await db()
    .select({ contactId: contacts.id, conversationId: conversations.id })
    .from(contacts)
    .leftJoin(conversations, eq(conversations.contactId, contacts.id))
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.name, "Wanjiku Kamau")))
    .limit(1);
  const bySku = new Map(saved.map((p) => [p.retailerId, p]));
  const lines = [
    { product: bySku.get("NYOTA-UMBRELLA")!, quantity: 2 },
    { product: bySku.get("PASSBOOK-COVER")!, quantity: 1 },
  ];
  const [order] = await db()
    .insert(orders)
    .values({
      organizationId,
      contactId: customer?.contactId ?? null,
      conversationId: customer?.conversationId ?? null,
      wamid: "wamid.demo-order-wanjiku-1",
      catalogId: "demo",
      note: "Nitachukua kwenye tawi la Nakuru.",
      totalCents: lines.reduce((sum, l) => sum + l.quantity * l.product.priceCents, 0),
      receivedAt: new Date(now - 3 * 24 * 3600_000),
    })
    .returning();
  await db()
    .insert(orderItems)
    .values(
      lines.map((l, position) => ({
        orderId: order!.id,
        position,
        retailerId: l.product.retailerId,
        productId: l.product.id,
        name: l.product.name,
        quantity: l.quantity,
        unitPriceCents: l.product.priceCents,
      })),
    );
}
