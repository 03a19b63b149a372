import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

/**
 * SMS through Africa's Talking (issue 77, decision 148): the organisation's own AT application.
 * One connection per organisation; the API key is sealed with encryptSecret and never shown again.
 */
export const SMS_CONNECTION_STATUSES = ["untested", "working", "failing"] as const;

export const smsConnections = pgTable(
  "sms_connections",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The AT application's username (case-sensitive). */
    username: text("username").notNull(),
    apiKeySealed: text("api_key_sealed").notNull(),
    /** The API key's last four characters, to tell two keys apart on the page. */
    apiKeyHint: text("api_key_hint").notNull(),
    /** A registered alphanumeric sender ID or shortcode; empty: AT's default sender. */
    senderId: text("sender_id").notNull().default(""),
    /**
     * The token in the delivery-report and incoming-message URLs (…/webhooks/sms/<token>/…): what binds
     * AT's unsigned callbacks to this organisation. Random, unique, never reused.
     */
    callbackToken: text("callback_token").notNull(),
    status: text("status", { enum: SMS_CONNECTION_STATUSES }).notNull().default("untested"),
    /** The stored English of the last failure (shown in the reader's language). */
    statusDetail: text("status_detail"),
    /** What the last test read of the AT balance, verbatim ("KES 1000.0000"). */
    balanceText: text("balance_text"),
    testedAt: timestamp("tested_at", { withTimezone: true }),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("sms_connections_org_idx").on(t.organizationId), uniqueIndex("sms_connections_token_idx").on(t.callbackToken)],
);

/**
 * One SMS in or out, beside the inbox's message (messages.channel = 'sms'): AT's id, what a delivery
 * report said (each report once), the parts and price of a send. Outbound: `at_message_id` is AT's
 * messageId (what delivery reports carry as `id`); inbound: AT's incoming `id`, so a callback sent
 * twice is stored once. Null: an outbound SMS whose send ended without AT's answer (a timeout): it may
 * have gone out; its first delivery report to that number names it (decision 150).
 */
export const smsMessages = pgTable(
  "sms_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The inbox's message (messages.id; no foreign key: the schema files would import each other). */
    messageId: uuid("message_id").notNull(),
    direction: text("direction", { enum: ["outbound", "inbound"] }).notNull(),
    atMessageId: text("at_message_id"),
    parts: integer("parts").notNull().default(1),
    /** What Jumbe charged the wallet, in cents of KES (outbound). */
    priceCents: integer("price_cents").notNull().default(0),
    /** AT's own cost of the send, verbatim ("KES 0.8000"). */
    atCost: text("at_cost"),
    /** The last delivery report's status (Success, Failed, Rejected, Buffered, Sent, Submitted). */
    reportStatus: text("report_status"),
    failureReason: text("failure_reason"),
    networkCode: text("network_code"),
    reportedAt: timestamp("reported_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("sms_messages_org_at_idx").on(t.organizationId, t.direction, t.atMessageId),
    index("sms_messages_message_idx").on(t.messageId),
    index("sms_messages_unknown_idx")
      .on(t.organizationId)
      .where(sql`at_message_id is null`),
  ],
);

/**
 * A delivery report that named an AT id Jumbe had not stored yet (issue 77): AT can report before
 * the send's answer is written. Kept until the send stores that id and applies it (under the same
 * advisory lock, receivers.ts), or deleted by housekeeping after two days (another tool's message on
 * the same AT application, never claimed). One row per id and status: a repeat changes nothing.
 */
export const smsEarlyReports = pgTable(
  "sms_early_reports",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    atMessageId: text("at_message_id").notNull(),
    status: text("status").notNull(),
    failureReason: text("failure_reason"),
    networkCode: text("network_code"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.atMessageId, t.status] }), index("sms_early_reports_received_idx").on(t.receivedAt)],
);
