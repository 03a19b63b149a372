import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";
import { messageTemplates } from "./templates";
import { paymentRequests } from "./payment-requests";

/** The store events a business can answer with a template (issue 45, the Shopify connector). */
export const SHOPIFY_EVENT_TYPES = ["order_created", "order_fulfilled", "checkout_abandoned"] as const;
export { SHOPIFY_FIELDS } from "../../../../lib/shopify";
/**
 * An event's state: received (stored, its job not yet run), waiting (an abandoned checkout before its
 * delay), then sent, skipped (with the reason), cancelled (the checkout was completed) or ignored;
 * a privacy request (customers/data_request, customers/redact, shop/redact) done, with what was done.
 */
export const SHOPIFY_EVENT_STATUSES = ["received", "waiting", "sent", "skipped", "cancelled", "ignored", "done"] as const;

/**
 * Which approved template answers each store event, and which field fills each body variable (by
 * position: `variables[0]` fills {{1}}); on or off; for abandoned checkouts the delay in minutes.
 */
export const shopifyMappings = pgTable(
  "shopify_mappings",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    eventType: text("event_type", { enum: SHOPIFY_EVENT_TYPES }).notNull(),
    enabled: boolean("enabled").notNull().default(false),
    templateId: uuid("template_id").references(() => messageTemplates.id, { onDelete: "set null" }),
    variables: jsonb("variables")
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    delayMinutes: integer("delay_minutes").notNull().default(60),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("shopify_mappings_org_event_idx").on(t.organizationId, t.eventType)],
);

/**
 * A webhook Shopify delivered, stored before it is answered (at least once: a repeat of the same
 * signed body adds nothing, decision 098), with what came of it: the message queued, or why none was.
 */
export const shopifyEvents = pgTable(
  "shopify_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    shop: text("shop").notNull(),
    /**
     * The delivery's key from its signed body: shop, topic, resource id and updated_at (decision 098),
     * the same for every delivery of one event; never the unsigned X-Shopify-Event-Id.
     */
    eventId: text("event_id").notNull(),
    topic: text("topic").notNull(),
    eventType: text("event_type", { enum: SHOPIFY_EVENT_TYPES }),
    payload: jsonb("payload").notNull(),
    status: text("status", { enum: SHOPIFY_EVENT_STATUSES }).notNull().default("received"),
    /** Why it was skipped, cancelled or ignored (a code: no_phone, opted_out, no_mapping…). */
    reason: text("reason"),
    /** The order's name (#1001) or the checkout's token, for people. */
    reference: text("reference"),
    phone: text("phone"),
    /**
     * The message sent about it (null once that message is deleted); no foreign key: a trigger checks and
     * clears it, as it will across messages' monthly partitions (decision 180).
     */
    messageId: uuid("message_id"),
    receivedAt: createdAt(),
    processedAt: timestamp("processed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("shopify_events_org_event_idx").on(t.organizationId, t.eventId),
    index("shopify_events_org_received_idx").on(t.organizationId, t.receivedAt.desc()),
    // A deleted message's events are found by it (decision 180's trigger clears their message_id).
    index("shopify_events_message_idx")
      .on(t.messageId)
      .where(sql`message_id is not null`),
  ],
);

/**
 * A checkout not yet completed: due for the abandoned-cart message at `due_at` (a delayed job), unless
 * it is completed (or its customer orders) first. `event_row_id` is the event that shows its outcome.
 */
export const shopifyCheckouts = pgTable(
  "shopify_checkouts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    token: text("token").notNull(),
    eventRowId: uuid("event_row_id")
      .notNull()
      .references(() => shopifyEvents.id, { onDelete: "cascade" }),
    payload: jsonb("payload").notNull(),
    phone: text("phone"),
    state: text("state", { enum: ["waiting", "done"] })
      .notNull()
      .default("waiting"),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("shopify_checkouts_org_token_idx").on(t.organizationId, t.token),
    index("shopify_checkouts_due_idx")
      .on(t.dueAt)
      .where(sql`state = 'waiting'`),
  ],
);

/** An import of the shop's products as a job (decision 147). */
export const SHOPIFY_IMPORT_STATES = ["queued", "running", "done", "failed"] as const;

/**
 * The organisation's Shopify choices beyond the template mappings (issue 76, decision 142): whether an
 * order waiting for its payment (cash on delivery, a manual payment) asks the customer to pay by M-Pesa.
 */
export const shopifySettings = pgTable("shopify_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  askPayment: boolean("ask_payment").notNull().default(false),
  /** When the shop's products were first imported: from then on products/* webhooks keep them in step. */
  productsImportedAt: timestamp("products_imported_at", { withTimezone: true }),
  /**
   * The latest "Import products from Shopify" (decision 147): queued, running, done or failed, when it
   * was asked for and when it ended, and what came of it (counts, SKUs kept; or the refusal's code).
   * Null: never asked for as a job. Read by the page, so every instance shows the same.
   */
  importState: text("import_state", { enum: SHOPIFY_IMPORT_STATES }),
  importRequestedAt: timestamp("import_requested_at", { withTimezone: true }),
  importFinishedAt: timestamp("import_finished_at", { withTimezone: true }),
  importResult: jsonb("import_result"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * asking: noted, its request not made yet (the event's job makes it, a retry too); requested; refused
 * (with the reason, nothing sent); then, with its request: paid (the shop to be told), marked (the
 * shop's order marked paid), mark_failed (the shop refused, with the reason), expired or cancelled
 * (the shop's order left pending).
 */
export const SHOPIFY_ORDER_PAYMENT_STATUSES = [
  "asking",
  "requested",
  "refused",
  "paid",
  "marked",
  "mark_failed",
  "expired",
  "cancelled",
] as const;

/**
 * A Shopify order waiting for its payment, asked of its customer by M-Pesa (issue 76, decision 142):
 * one per organisation, shop and order, however many times its webhook comes.
 */
export const shopifyOrderPayments = pgTable(
  "shopify_order_payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    shop: text("shop").notNull(),
    /** Shopify's numeric order id (its global id is gid://shopify/Order/<id>). */
    orderId: text("order_id").notNull(),
    /** The orders/create event that asked (the events list shows the outcome beside it). */
    eventRowId: uuid("event_row_id").references(() => shopifyEvents.id, { onDelete: "set null" }),
    /** The order's name (#1001). */
    reference: text("reference"),
    status: text("status", { enum: SHOPIFY_ORDER_PAYMENT_STATUSES }).notNull().default("asking"),
    /** Why nothing was asked, or why the shop refused the mark (a code). */
    reason: text("reason"),
    paymentRequestId: uuid("payment_request_id").references(() => paymentRequests.id, { onDelete: "set null" }),
    amountKes: integer("amount_kes"),
    markedAt: timestamp("marked_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("shopify_order_payments_order_idx").on(t.organizationId, t.shop, t.orderId),
    index("shopify_order_payments_event_idx").on(t.eventRowId),
    index("shopify_order_payments_request_idx").on(t.paymentRequestId),
  ],
);
