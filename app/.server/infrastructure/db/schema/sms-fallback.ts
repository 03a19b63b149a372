import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";
import { campaigns } from "./campaigns";
import { SMS_FALLBACK_AUTOMATIONS } from "../../../../lib/sms-fallback";
export { SMS_FALLBACK_AUTOMATIONS, type SmsFallbackAutomation } from "../../../../lib/sms-fallback";

export const SMS_FALLBACK_STATES = ["pending", "sent", "cancelled", "skipped"] as const;

/**
 * One WhatsApp message's SMS fallback (issue 77, decision 152): at most one a message, by the unique
 * source. `pending` until a job claims it under the source message's lock: then `sent` (the SMS is
 * `sms_message_id`), `cancelled` (WhatsApp delivered it first) or `skipped` with why (opted out, no
 * connection, the wallet...). `due_at`: when it may be claimed (quiet hours move it on).
 */
export const smsFallbacks = pgTable(
  "sms_fallbacks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /**
     * Deleted with its message; no foreign key: a trigger checks and cascades it, as it will across messages'
     * monthly partitions (decision 180).
     */
    sourceMessageId: uuid("source_message_id").notNull(),
    campaignId: uuid("campaign_id").references(() => campaigns.id, { onDelete: "cascade" }),
    /** The automation that armed it (decision 159); null for a campaign's or a broadcast's. */
    automation: text("automation", { enum: SMS_FALLBACK_AUTOMATIONS }),
    /** An automation's SMS, its values filled when the WhatsApp message was queued (a campaign's is made when sent). */
    body: text("body"),
    /** What set it off: Meta's undeliverable failure, or no delivery within the campaign's time. */
    trigger: text("trigger", { enum: ["failed", "not_delivered"] }).notNull(),
    state: text("state", { enum: SMS_FALLBACK_STATES }).notNull().default("pending"),
    /** Why it was skipped or cancelled (opted_out, quiet_hours, balance, not_connected, no_phone, too_long, delivered). */
    reason: text("reason"),
    smsMessageId: uuid("sms_message_id"),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** WhatsApp said delivered (or read) after the SMS was claimed: the customer got both. */
    whatsappLateAt: timestamp("whatsapp_late_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("sms_fallbacks_source_idx").on(t.sourceMessageId),
    index("sms_fallbacks_campaign_idx")
      .on(t.campaignId, t.state)
      .where(sql`campaign_id is not null`),
    index("sms_fallbacks_pending_idx")
      .on(t.dueAt)
      .where(sql`state = 'pending'`),
  ],
);

/**
 * An automation's SMS fallback as the organisation set it (decision 159), one row an automation:
 * its own text (the template's values {{1}}, {{2}}... allowed) or the message's text (mode
 * `message`), and "not delivered within" in minutes (the campaigns' bounds). No row: no fallback.
 */
export const automationSmsFallbacks = pgTable(
  "automation_sms_fallbacks",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    automation: text("automation", { enum: SMS_FALLBACK_AUTOMATIONS }).notNull(),
    mode: text("mode", { enum: ["own", "message"] }).notNull(),
    text: text("text"),
    afterMinutes: integer("after_minutes").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.automation] })],
);
