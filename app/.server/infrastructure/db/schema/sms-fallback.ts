import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";
import { messages } from "./messaging";
import { campaigns } from "./campaigns";

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
    sourceMessageId: uuid("source_message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    campaignId: uuid("campaign_id").references(() => campaigns.id, { onDelete: "cascade" }),
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
