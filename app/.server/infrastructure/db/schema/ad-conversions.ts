import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { contacts } from "./messaging";

/**
 * Conversions sent back to Meta (issue 77, decision 156): the organisation's consent, the dataset of
 * each of its WhatsApp Business Accounts, and the outbox of events (a purchase, a lead) written in
 * the transaction that records their source and sent by a job to `POST /{dataset_id}/events`.
 */
export const adConversionSettings = pgTable("ad_conversion_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  /** "Send conversions to Meta": off until an owner or admin turns it on. */
  enabled: boolean("enabled").notNull().default(false),
  /**
   * The tags that mean "converted" (a lead, decision 158): adding one to a contact whose conversation
   * came from an ad queues one LeadSubmitted, from a trigger on contacts (migration 0081), so every
   * path that writes tags (inbox, rules, flows, imports, bulk, API, merges, HubSpot) is counted.
   */
  leadTags: text("lead_tags")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  changedBy: uuid("changed_by").references(() => users.id, { onDelete: "set null" }),
  changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
});

/** The dataset Meta keeps a WABA's conversion events in (got, or created, when consent is given). */
export const adDatasets = pgTable(
  "ad_datasets",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    wabaId: text("waba_id").notNull(),
    datasetId: text("dataset_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.wabaId] })],
);

export const AD_CONVERSION_EVENT_NAMES = ["LeadSubmitted", "Purchase"] as const;
export const AD_CONVERSION_SOURCES = ["payment_request", "order", "manual", "tag", "flow_end"] as const;
export const AD_CONVERSION_STATUSES = ["queued", "sending", "sent", "failed", "skipped"] as const;

export const adConversionEvents = pgTable(
  "ad_conversion_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** A column, not a foreign key (as ad_referrals): the rows go with their contact. */
    conversationId: uuid("conversation_id").notNull(),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    adReferralId: uuid("ad_referral_id").notNull(),
    /** Copied from the referral and the conversation's number when written: what Meta is sent. */
    ctwaClid: text("ctwa_clid").notNull(),
    wabaId: text("waba_id").notNull(),
    eventName: text("event_name", { enum: AD_CONVERSION_EVENT_NAMES }).notNull(),
    /** KES cents (Meta is sent major units); null for a lead. */
    valueCents: integer("value_cents"),
    currency: text("currency"),
    source: text("source", { enum: AD_CONVERSION_SOURCES }).notNull(),
    sourceId: text("source_id"),
    /** One event per source (`purchase:payment_request:<id>`); also Meta's `event_id`. */
    idempotencyKey: text("idempotency_key").notNull(),
    /** When the conversion happened (Meta's `event_time`). */
    eventTime: timestamp("event_time", { withTimezone: true }).notNull(),
    status: text("status", { enum: AD_CONVERSION_STATUSES }).notNull().default("queued"),
    /** Why it failed or was skipped (English, for the team). */
    reason: text("reason"),
    /** Meta's answer to the request that carried it (events_received, fbtrace_id, or its error). */
    metaAnswer: text("meta_answer"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** A sender's claim: a `sending` row whose claim ran out is in doubt and sent again with the same event_id. */
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("ad_conversion_events_key_idx").on(t.organizationId, t.idempotencyKey),
    index("ad_conversion_events_conversation_idx").on(t.conversationId, t.createdAt),
    index("ad_conversion_events_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`status in ('queued', 'sending')`),
  ],
);
