import { bigint, date, index, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./auth";

/**
 * Analytics rollups (decision 036). Every change to a message that moves a figure (accepted,
 * delivered, read, failed, replied, received, charged) is written as a signed delta into
 * message_stats_pending by a statement trigger on messages, in the writer's own transaction; the
 * analytics.fold job adds the deltas into the hourly and daily rollups a batch at a time. Writers
 * never update a shared counter row, so the sending engine and the webhooks never wait on each
 * other for a figure, and a status counted once stays counted once however often it arrives.
 */
const figures = {
  /** Customers' messages that arrived (inbound). */
  received: bigint("received", { mode: "number" }).notNull().default(0),
  /** Outbound messages Meta accepted, in the hour of acceptance. */
  sent: bigint("sent", { mode: "number" }).notNull().default(0),
  /** Delivered (or read without a delivered status first), in the hour of delivery. */
  delivered: bigint("delivered", { mode: "number" }).notNull().default(0),
  read: bigint("read", { mode: "number" }).notNull().default(0),
  failed: bigint("failed", { mode: "number" }).notNull().default(0),
  /** Outbound messages a customer answered (messages.replied_at), in the hour of the answer. */
  replied: bigint("replied", { mode: "number" }).notNull().default(0),
  /** What the wallet was charged for them (prepaid), in cents, in the hour of acceptance. */
  spendCents: bigint("spend_cents", { mode: "number" }).notNull().default(0),
  /** First responses to a waiting customer (decision 036) and their total time, in the hour of the response. */
  responses: bigint("responses", { mode: "number" }).notNull().default(0),
  responseSeconds: bigint("response_seconds", { mode: "number" }).notNull().default(0),
};

/**
 * The dimensions: the business number ('' when none), the template (null: free-form or inbound) and
 * the Meta pricing category (marketing, utility, authentication, service; '' for what is not a sent
 * message: received messages and response times).
 */
const dimensions = {
  organizationId: uuid("organization_id").notNull(),
  phoneNumberId: text("phone_number_id").notNull().default(""),
  templateId: uuid("template_id"),
  category: text("category").notNull().default(""),
};

/** Deltas not yet folded: append-only, no foreign key (an organisation deleted meanwhile is skipped by the fold). */
export const messageStatsPending = pgTable("message_stats_pending", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  hour: timestamp("hour", { withTimezone: true }).notNull(),
  ...dimensions,
  ...figures,
});

/** The figures per UTC hour (Nairobi hours fall on them): the 24-hour period and the hourly chart. */
export const messageStatsHourly = pgTable(
  "message_stats_hourly",
  {
    ...dimensions,
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    ...figures,
  },
  (t) => [unique("message_stats_hourly_key").on(t.organizationId, t.hour, t.phoneNumberId, t.templateId, t.category).nullsNotDistinct()],
);

/** The same figures per Africa/Nairobi day: periods of days read a row per day and dimension, not 24. */
export const messageStatsDaily = pgTable(
  "message_stats_daily",
  {
    ...dimensions,
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    ...figures,
  },
  (t) => [unique("message_stats_daily_key").on(t.organizationId, t.day, t.phoneNumberId, t.templateId, t.category).nullsNotDistinct()],
);

/**
 * The whole platform's messages per Africa/Nairobi day, folded with the rollups above: the admin
 * console's messages this month and volume chart read a row a day, whatever the number of tenants.
 */
export const platformMessageDaily = pgTable("platform_message_daily", {
  day: date("day").primaryKey(),
  sent: bigint("sent", { mode: "number" }).notNull().default(0),
  received: bigint("received", { mode: "number" }).notNull().default(0),
});

/** Each organisation's last Africa/Nairobi day with a message sent or received (the console's "active" and "last active"). */
export const organizationMessageDays = pgTable("organization_message_days", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  lastDay: date("last_day").notNull(),
});

/**
 * The chart's three figures per hour and number alone: the hour-of-day chart of a long range reads
 * one row an hour and number (8,760 a year) instead of one per template and category as well.
 */
export const messageVolumeHourly = pgTable(
  "message_volume_hourly",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    phoneNumberId: text("phone_number_id").notNull(),
    sent: bigint("sent", { mode: "number" }).notNull().default(0),
    delivered: bigint("delivered", { mode: "number" }).notNull().default(0),
    read: bigint("read", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.hour, t.phoneNumberId] })],
);

/**
 * What the fold does beyond adding: a contact was active (for unique contacts), a customer wrote
 * (which answers a business message), a business message went to a customer (which may end a wait).
 */
export const analyticsEventsPending = pgTable("analytics_events_pending", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  kind: text("kind", { enum: ["contact", "inbound", "response"] }).notNull(),
  organizationId: uuid("organization_id").notNull(),
  contactId: uuid("contact_id"),
  phoneNumberId: text("phone_number_id").notNull().default(""),
  messageId: uuid("message_id").notNull(),
  at: timestamp("at", { withTimezone: true }).notNull(),
});

/**
 * The hours and Nairobi days on which a contact exchanged a message with the business, on one number
 * and on any ('' ). With contact_first_counts it answers "how many different contacts in this
 * range" exactly, without counting distinct contacts over millions of rows.
 */
export const contactActivePeriods = pgTable(
  "contact_active_periods",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").notNull(),
    phoneNumberId: text("phone_number_id").notNull(),
    grain: text("grain", { enum: ["hour", "day"] }).notNull(),
    /** The hour, or the Nairobi day's midnight. */
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.contactId, t.phoneNumberId, t.grain, t.at] }),
    index("contact_active_periods_at_idx").on(t.grain, t.at),
    // One organisation's rows: its backfill, and the cascade when it is erased.
    index("contact_active_periods_org_idx").on(t.organizationId),
  ],
);

/**
 * For each period (hour or day) and each "previous active period" of the contacts active in it,
 * how many contacts: the contacts active in [a, b] are those of the periods in [a, b] whose
 * previous period is before a ('-infinity' when they had none). A period has one row per distinct
 * previous period, so a 90-day range reads a few thousand rows whatever the number of contacts.
 */
export const contactFirstCounts = pgTable(
  "contact_first_counts",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    grain: text("grain", { enum: ["hour", "day"] }).notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    previousAt: timestamp("previous_at", { withTimezone: true }).notNull(),
    contacts: bigint("contacts", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.phoneNumberId, t.grain, t.at, t.previousAt] })],
);
