import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { contacts } from "./messaging";
import { segments } from "./contacts";
import { apiKeys } from "./developer";

/** Where a template's placeholder takes its value: a contact field or attribute, or a fixed text. */
export type ParameterSource = { field: string; fallback?: string } | { value: string };

/** A media header's file, the same for every recipient: an https link, or a file of Jumbe's media store. */
export interface CampaignHeaderMedia {
  link?: string;
  mediaId?: string;
  /** Documents: the name the customer sees. */
  filename?: string;
}

/** A dynamic URL button's suffix or a copy-code button's code, by the button's position (from 0). */
export interface CampaignButton {
  index: number;
  source: ParameterSource;
}

/**
 * A catalog or multi-product template's products (decision 146), by the shop's product ids: the
 * thumbnail product and, for a multi-product template, the sections shown. Read again at send.
 */
export interface CampaignProducts {
  thumbnail: string;
  sections?: { title: string; productIds: string[] }[];
}

/** Where each of a campaign's template values comes from. */
export interface CampaignParameters {
  /** The body's placeholders in order. */
  body: ParameterSource[];
  /** A TEXT header's placeholder. */
  header?: ParameterSource;
  /** An IMAGE, VIDEO or DOCUMENT header's file. */
  headerMedia?: CampaignHeaderMedia;
  buttons?: CampaignButton[];
  /** A catalog or multi-product template's products. */
  products?: CampaignProducts;
}

/**
 * A campaign's SMS fallback (issue 77, decision 152): the SMS sent once to a recipient WhatsApp
 * cannot reach. `text` has the template's placeholders ({{1}} or {{name}}), filled with the
 * recipient's values as the template's are; `own` is the tenant's text, `message` the template's
 * body as it was when the campaign was saved. `afterMinutes`: also when WhatsApp has not delivered
 * it within that time. Null on the campaign: no fallback.
 */
export interface CampaignSmsFallback {
  mode: "own" | "message";
  text: string;
  /** The template's named placeholders in order (empty for {{1}}, {{2}}...). */
  named: string[];
  afterMinutes: number;
}

/** Who a campaign goes to: any mix of a segment, tags, chosen contacts and numbers; or everyone opted in. */
export interface CampaignAudience {
  segmentId?: string;
  tags?: string[];
  contactIds?: string[];
  phones?: string[];
  everyone?: boolean;
}

/** Why a person in the audience gets nothing, with how many. */
export type LeftOutReason = "not_opted_in" | "erased" | "invalid_number" | "duplicate" | "missing_value" | "cancelled" | "no_products";

/** The live figures of a campaign, as its page and list show them. */
export interface CampaignCounts {
  queued: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  failed: number;
}

/** What a campaign's finished lines said: sent, failed by the message of their short words, left out. */
export interface ReportedOutcome {
  sent: number;
  failed: number;
  failedBy: { words: string; count: number }[];
  leftOut: number;
}

/**
 * A campaign or a quick broadcast: one approved template to an audience, now or at a time. Its
 * recipients are frozen when it starts (campaign_recipients); the feeder turns them into messages
 * a little ahead of the number's rate, so a pause holds at once.
 */
export const campaigns = pgTable(
  "campaigns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["campaign", "broadcast"] })
      .notNull()
      .default("campaign"),
    name: text("name").notNull(),
    status: text("status", {
      enum: ["draft", "awaiting_approval", "scheduled", "sending", "paused", "completed", "cancelled", "failed"],
    })
      .notNull()
      .default("draft"),
    /** The sender: Meta's phone number id of one of the tenant's connected numbers. */
    phoneNumberId: text("phone_number_id").notNull(),
    templateName: text("template_name").notNull(),
    templateLanguage: text("template_language").notNull(),
    /** MARKETING, UTILITY or AUTHENTICATION, as approved when the campaign was saved. */
    templateCategory: text("template_category").notNull(),
    /** The body's placeholders, a TEXT header's and the buttons' (each from a field or a fixed value), a media header's file. */
    parameters: jsonb("parameters").$type<CampaignParameters>().notNull(),
    audience: jsonb("audience").$type<CampaignAudience>().notNull(),
    segmentId: uuid("segment_id").references(() => segments.id, { onDelete: "set null" }),
    scheduledFor: timestamp("scheduled_for", { withTimezone: true }),
    /** Frozen at the start: everyone the audience named, and those left out by reason. */
    audienceSize: integer("audience_size"),
    leftOut: jsonb("left_out").$type<Partial<Record<LeftOutReason, number>>>(),
    /** The estimate shown before confirming, in KES cents (Meta's rate by category plus Jumbe's fee). */
    estimatedCostCents: bigint("estimated_cost_cents", { mode: "number" }),
    /** The latest figures: counted from the messages at most once a second while it sends, final once it ends. */
    counts: jsonb("counts").$type<CampaignCounts>(),
    countedAt: timestamp("counted_at", { withTimezone: true }),
    /**
     * What its "finished" notification and activity lines have said so far (campaigns/outcome.ts's
     * CampaignOutcome): set when it completes, and again when failures Meta reports later are told
     * (decision 114). Null until it completes. Each later line tells only what this did not hold.
     */
    reportedOutcome: jsonb("reported_outcome").$type<ReportedOutcome>(),
    /** Its SMS fallback, or null (off). */
    smsFallback: jsonb("sms_fallback").$type<CampaignSmsFallback>(),
    /** Why it is paused: a person's pause, or Jumbe's (template paused, quality low, messaging limit). */
    pausedReason: text("paused_reason"),
    pausedBy: uuid("paused_by").references(() => users.id, { onDelete: "set null" }),
    /** A note the tenant should see while it sends (the messaging limit holding it back). */
    notice: text("notice"),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    /** Made through the API: the key it was made with (maker-checker: whoever has seen that key cannot approve it, decision 045). */
    apiKeyId: uuid("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    /** Maker-checker: who approved or declined a campaign that waited for approval, and when (and why, if declined). */
    approvedBy: uuid("approved_by").references(() => users.id, { onDelete: "set null" }),
    approvedAt: timestamp("approved_at", { withTimezone: true }),
    declinedBy: uuid("declined_by").references(() => users.id, { onDelete: "set null" }),
    declinedAt: timestamp("declined_at", { withTimezone: true }),
    declineReason: text("decline_reason"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    index("campaigns_org_created_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    // The feeder's rounds: campaigns due to start, and those sending.
    index("campaigns_due_idx")
      .on(t.scheduledFor)
      .where(sql`status = 'scheduled'`),
    index("campaigns_sending_idx")
      .on(t.updatedAt)
      .where(sql`status = 'sending'`),
    // The feeder's sweep of campaigns paused or cancelled in the last minutes.
    index("campaigns_stopped_idx")
      .on(t.updatedAt)
      .where(sql`status in ('paused', 'cancelled')`),
  ],
);

/**
 * A campaign's audience, frozen when it starts: one row per distinct number, in order. `pending`
 * rows become messages (`queued`, with message_id) in the same transaction, so a crash or a second
 * instance never sends one twice or skips one; `left_out` rows say why they get nothing.
 */
export const campaignRecipients = pgTable(
  "campaign_recipients",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** E.164; null once the person is erased. An invalid number stays as given, left out. */
    phone: text("phone"),
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    state: text("state", { enum: ["pending", "queued", "left_out"] }).notNull(),
    reason: text("reason"),
    messageId: uuid("message_id"),
    /** An inbound message from them within 72 hours of delivery. */
    repliedAt: timestamp("replied_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("campaign_recipients_phone_idx").on(t.campaignId, t.phone),
    // A page of results in audience order: read from here, 50 rows joined, not the whole campaign sorted.
    index("campaign_recipients_campaign_idx").on(t.campaignId, t.id),
    index("campaign_recipients_pending_idx")
      .on(t.campaignId, t.id)
      .where(sql`state = 'pending'`),
    // Erasure finds a person's rows by number; deleting a contact unlinks its rows.
    index("campaign_recipients_org_phone_idx").on(t.organizationId, t.phone),
    index("campaign_recipients_contact_idx")
      .on(t.contactId)
      .where(sql`contact_id is not null`),
    index("campaign_recipients_message_idx")
      .on(t.messageId)
      .where(sql`message_id is not null`),
  ],
);
