import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, real, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { contacts, conversations } from "./messaging";

/** How a keyword rule compares a customer's message with its keywords (domains/automations/match.ts). */
export const AUTOMATION_MATCH_TYPES = ["exact", "contains", "starts_with", "fuzzy", "regex"] as const;

/**
 * A keyword rule (issue 44): when a customer's message matches one of its keywords, its actions run
 * (a reply, tags, an assignment). Rules are tried in `position` order, the first match wins; one
 * rule fires at most once per contact within its cooldown.
 */
export const automationRules = pgTable(
  "automation_rules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    matchType: text("match_type", { enum: AUTOMATION_MATCH_TYPES }).notNull(),
    keywords: text("keywords").array().notNull(),
    /** Fuzzy matching's similarity threshold, 0.5 to 1. */
    threshold: real("threshold"),
    /** One business number's messages only (Meta's phone number id); null: every number. */
    phoneNumberId: text("phone_number_id"),
    /**
     * Only messages that came from a Click-to-WhatsApp ad (issue 77): "any" for any ad, else the ad's
     * source_id; null: every message. With it, a rule may have no keywords (every message from the ad).
     */
    fromAd: text("from_ad"),
    cooldownMinutes: integer("cooldown_minutes").notNull().default(0),
    /** What it does, in order: `[{ type: "reply", text }, { type: "tags", add, remove }, { type: "assign", to }]`. */
    actions: jsonb("actions").notNull(),
    /** Lower first. */
    position: integer("position").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    firedCount: integer("fired_count").notNull().default(0),
    lastFiredAt: timestamp("last_fired_at", { withTimezone: true }),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("automation_rules_org_position_idx").on(t.organizationId, t.position)],
);

/**
 * An organisation's welcome and away messages and its business hours (one row, written when first
 * saved). `version` grows with every change to it or to a rule: each instance keeps its compiled
 * rules until the version it reads differs.
 */
export const automationSettings = pgTable("automation_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  welcomeEnabled: boolean("welcome_enabled").notNull().default(false),
  welcomeText: text("welcome_text").notNull().default(""),
  awayEnabled: boolean("away_enabled").notNull().default(false),
  awayText: text("away_text").notNull().default(""),
  /** `{ "1": [{ "from": "08:00", "to": "17:00" }], ... }` by weekday (Sunday 0), in the organisation's time zone. */
  hours: jsonb("hours")
    .notNull()
    .default(sql`'{}'::jsonb`),
  /** Closed days, "YYYY-MM-DD" in the organisation's time zone. */
  holidays: text("holidays")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  holidayMode: boolean("holiday_mode").notNull().default(false),
  /** When a customer's cart (an `order` message) arrives, its total is asked for by M-Pesa (issue 76, decision 139). */
  orderPaymentEnabled: boolean("order_payment_enabled").notNull().default(false),
  version: integer("version").notNull().default(0),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
});

/**
 * What automations did with one customer message: at most one run a message (the unique index makes
 * a retried job a no-op), its outcome, and the reply it queued. Cooldowns, the away message's once a
 * day, the caps and a rule's figures are read from here.
 */
export const automationRuns = pgTable(
  "automation_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /**
     * The customer's message that set it off; null for a flow's own messages (a wait's end, the idle
     * timeout). Deleted with it; no foreign key: a trigger checks and cascades it, as it will across
     * messages' monthly partitions (decision 180).
     */
    messageId: uuid("message_id"),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    kind: text("kind", { enum: ["rule", "welcome", "away", "flow", "assistant"] }).notNull(),
    ruleId: uuid("rule_id").references(() => automationRules.id, { onDelete: "set null" }),
    /** The reply it queued (null: none, e.g. a rule that only tags). */
    replyId: uuid("reply_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("automation_runs_message_idx").on(t.messageId),
    index("automation_runs_contact_rule_idx").on(t.contactId, t.ruleId, t.createdAt),
    index("automation_runs_conversation_idx").on(t.conversationId, t.kind, t.createdAt),
    // A number's automated replies in the last hour (its cap, read under its lock by the reply gate): the runs that replied only.
    index("automation_runs_number_replies_idx")
      .on(t.phoneNumberId, t.createdAt)
      .where(sql`${t.replyId} is not null`),
    // Analytics: an organisation's runs in a period.
    index("automation_runs_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);

/**
 * A keyword rule's tag and field changes for a contact whose row was busy when its reply was queued
 * (a webhook batch storing that person's next message held it): kept here, in the order they fired,
 * and folded into the contact by a job (automations/batch-effects.ts), so a reply's transaction never
 * waits on a customer's row. While a contact has changes here, later ones join the queue behind them.
 */
export const automationContactChanges = pgTable(
  "automation_contact_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    add: text("add").array().notNull(),
    remove: text("remove").array().notNull(),
    fields: jsonb("fields").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("automation_contact_changes_contact_idx").on(t.contactId, t.id)],
);
