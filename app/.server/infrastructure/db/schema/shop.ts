import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";
import { contacts, conversations } from "./messaging";
import { whatsappAccounts } from "./whatsapp";
import { paymentRequests } from "./payment-requests";
import { ORDER_STATUSES } from "../../../../lib/shop";

/**
 * The shop (issue 76): an organisation's products, mirrored into its Meta commerce catalog so
 * agents can send them in a chat, and the orders customers send back from their WhatsApp cart.
 */

export const PRODUCT_AVAILABILITIES = ["in stock", "out of stock"] as const;
export type ProductAvailability = (typeof PRODUCT_AVAILABILITIES)[number];
/** pending: a change waits for the sync job; synced: Meta holds this version; failed: Meta refused it (sync_error says why). */
export const PRODUCT_SYNC_STATES = ["pending", "synced", "failed"] as const;
export type ProductSyncState = (typeof PRODUCT_SYNC_STATES)[number];

export { ORDER_STATUSES, type OrderStatus } from "../../../../lib/shop";

/** The organisation's Meta commerce catalog, connected to its WhatsApp Business Account. One per account. */
export const shopCatalogs = pgTable(
  "shop_catalogs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    accountId: uuid("account_id")
      .notNull()
      .references(() => whatsappAccounts.id, { onDelete: "cascade" }),
    /** Meta's catalog id. */
    catalogId: text("catalog_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("shop_catalogs_account_idx").on(t.accountId), index("shop_catalogs_org_idx").on(t.organizationId)],
);

export const products = pgTable(
  "products",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The SKU: Meta's retailer_id, the product_retailer_id of messages and orders. */
    retailerId: text("retailer_id").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** KES cents (Meta's minor units). */
    priceCents: bigint("price_cents", { mode: "number" }).notNull(),
    currency: text("currency").notNull().default("KES"),
    /** An image address the team gave (https); null when Jumbe keeps the image (image_key). */
    imageUrl: text("image_url"),
    /** The uploaded image in Jumbe's file storage (decision 141), served publicly for Meta at /catalog-images/<image_token>. */
    imageKey: text("image_key"),
    /** The unguessable name of the image's public address; a new one for every upload. */
    imageToken: text("image_token"),
    /** image/jpeg or image/png, as its first bytes say. */
    imageType: text("image_type"),
    availability: text("availability", { enum: PRODUCT_AVAILABILITIES }).notNull().default("in stock"),
    /** Meta's product item id, once the catalog holds it. */
    metaProductId: text("meta_product_id"),
    syncState: text("sync_state", { enum: PRODUCT_SYNC_STATES }).notNull().default("pending"),
    syncError: text("sync_error"),
    syncedAt: timestamp("synced_at", { withTimezone: true }),
    /** Removed by the team: kept until the catalog no longer holds it, then deleted. */
    removedAt: timestamp("removed_at", { withTimezone: true }),
    /**
     * A product from a Shopify shop (decision 142): the shop, its product and the variant this row is;
     * null for one made in Jumbe (by hand or CSV), which Shopify never overwrites.
     */
    shopifyShop: text("shopify_shop"),
    shopifyProductId: text("shopify_product_id"),
    shopifyVariantId: text("shopify_variant_id"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("products_org_retailer_idx").on(t.organizationId, t.retailerId),
    uniqueIndex("products_image_token_idx").on(t.imageToken),
    index("products_org_name_idx").on(t.organizationId, t.name),
    index("products_org_shopify_idx").on(t.organizationId, t.shopifyShop, t.shopifyProductId),
  ],
);

export const orders = pgTable(
  "orders",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    /**
     * The inbound message that carried the cart (null once that message is deleted); no foreign key:
     * a trigger checks and clears it, as it will across messages' monthly partitions (decision 180).
     */
    messageId: uuid("message_id"),
    /** The cart message's wamid: an order delivered twice is one order. */
    wamid: text("wamid").notNull(),
    catalogId: text("catalog_id").notNull(),
    note: text("note").notNull().default(""),
    totalCents: bigint("total_cents", { mode: "number" }).notNull(),
    currency: text("currency").notNull().default("KES"),
    status: text("status", { enum: ORDER_STATUSES }).notNull().default("received"),
    /** The payment request asking for this order's total; its payment marks the order paid. */
    paymentRequestId: uuid("payment_request_id").references(() => paymentRequests.id, { onDelete: "set null" }),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("orders_org_wamid_idx").on(t.organizationId, t.wamid),
    index("orders_org_received_idx").on(t.organizationId, t.receivedAt.desc()),
    index("orders_conversation_idx")
      .on(t.conversationId)
      .where(sql`conversation_id is not null`),
    // A deleted message's orders are found by it (decision 180's trigger clears their message_id).
    index("orders_message_idx")
      .on(t.messageId)
      .where(sql`message_id is not null`),
  ],
);

export const orderItems = pgTable(
  "order_items",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    /** The cart's line order. */
    position: integer("position").notNull(),
    retailerId: text("retailer_id").notNull(),
    productId: uuid("product_id").references(() => products.id, { onDelete: "set null" }),
    /** The product's name when the order came (the retailer id when the product is unknown). */
    name: text("name").notNull(),
    quantity: integer("quantity").notNull(),
    unitPriceCents: bigint("unit_price_cents", { mode: "number" }).notNull(),
    currency: text("currency").notNull().default("KES"),
  },
  (t) => [uniqueIndex("order_items_order_position_idx").on(t.orderId, t.position)],
);

/** What one product of a batch was when it was sent: its id and updated_at to the millisecond (ISO). */
export interface BatchedProduct {
  id: string;
  version: string;
}

/**
 * A Catalog API batch (`POST /{catalog-id}/items_batch`, decision 141): many products sent in one call
 * (a CSV import, "sync now"), whose outcome Meta gives later for its handle
 * (`check_batch_request_status`). The products it carried wait here until the answer marks them.
 */
export const shopCatalogBatches = pgTable(
  "shop_catalog_batches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    catalogId: text("catalog_id").notNull(),
    /** Meta's handle of the batch. */
    handle: text("handle").notNull(),
    products: jsonb("products").$type<BatchedProduct[]>().notNull(),
    /** in_progress until Meta says the batch is finished. */
    status: text("status", { enum: ["in_progress", "finished"] })
      .notNull()
      .default("in_progress"),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("shop_catalog_batches_org_idx").on(t.organizationId, t.createdAt)],
);
