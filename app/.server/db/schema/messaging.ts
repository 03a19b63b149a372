import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";

export const contacts = pgTable(
  "contacts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    phone: text("phone"),
    waId: text("wa_id"),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
  },
  (t) => [
    index("contacts_org_idx").on(t.organizationId),
    uniqueIndex("contacts_org_wa_id_idx")
      .on(t.organizationId, t.waId)
      .where(sql`wa_id is not null`),
  ],
);

export const messages = pgTable(
  "messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    direction: text("direction", { enum: ["outbound", "inbound"] }).notNull(),
    status: text("status").notNull(),
    body: text("body").notNull().default(""),
    /** WhatsApp's message id (wamid): unique per tenant, the key for statuses and duplicate deliveries. */
    wamid: text("wamid"),
    phoneNumberId: text("phone_number_id"),
    messageType: text("message_type").notNull().default("text"),
    /** The message object as Meta sent it (media ids, replies, reactions...). */
    payload: jsonb("payload"),
    /** When WhatsApp says the message happened (webhook timestamp); createdAt is when Jumbe stored it. */
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("messages_org_created_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("messages_org_wamid_idx")
      .on(t.organizationId, t.wamid)
      .where(sql`wamid is not null`),
  ],
);

/** Message statuses from webhooks, one row per (message, status): kept even before Jumbe knows the message. */
export const messageStatuses = pgTable(
  "message_statuses",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    wamid: text("wamid").notNull(),
    status: text("status").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    recipientId: text("recipient_id"),
    errors: jsonb("errors"),
    pricing: jsonb("pricing"),
    eventId: bigint("event_id", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("message_statuses_org_wamid_status_idx").on(t.organizationId, t.wamid, t.status)],
);
