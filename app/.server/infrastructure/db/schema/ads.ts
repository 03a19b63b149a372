import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";
import { contacts, mediaFiles } from "./messaging";

/**
 * Click-to-WhatsApp ads (issue 77, decision 154): the `referral` Meta puts on the first message a
 * customer sends from an ad (or a boosted post), kept once per message. The conversation points at
 * its latest one; the contact at its first and latest (first touch, last touch).
 */
export const adReferrals = pgTable(
  "ad_referrals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    /** The conversation it opened or continued (no foreign key: conversations are erased with their contact). */
    conversationId: uuid("conversation_id"),
    /** The customer's message that carried it (messages.id). */
    messageId: uuid("message_id").notNull(),
    phoneNumberId: text("phone_number_id").notNull(),
    /** The ad's (or post's) id: what analytics group by. */
    sourceId: text("source_id").notNull(),
    sourceType: text("source_type", { enum: ["ad", "post", "unknown"] }).notNull(),
    sourceUrl: text("source_url"),
    headline: text("headline"),
    body: text("body"),
    mediaType: text("media_type"),
    imageUrl: text("image_url"),
    videoUrl: text("video_url"),
    thumbnailUrl: text("thumbnail_url"),
    /** The ad's click id: what the Conversions API needs to tie a sale to the ad. */
    ctwaClid: text("ctwa_clid"),
    welcomeMessage: text("welcome_message"),
    /**
     * The ad's picture (its thumbnail, else its image) fetched from Meta's CDN into Jumbe's storage by
     * the `ads.picture` job (domains/ads/picture.ts): the inbox shows it from there. Null until then,
     * or when it could not be fetched (the header then has no picture).
     */
    pictureFileId: uuid("picture_file_id").references(() => mediaFiles.id, { onDelete: "set null" }),
    /** When the customer sent the message (the click's time, as near as Meta tells it). */
    clickedAt: timestamp("clicked_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ad_referrals_message_idx").on(t.messageId),
    index("ad_referrals_org_source_idx").on(t.organizationId, t.sourceId, t.clickedAt.desc()),
    index("ad_referrals_contact_idx").on(t.contactId),
  ],
);
