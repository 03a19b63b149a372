import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";
import { contacts } from "./messaging";
import { segments } from "./contacts";

/**
 * A Jumbe contact and the HubSpot contact it is (decision 083), per portal: a portal connected
 * anew keeps its links, another portal starts afresh. The two change marks are what the conflict
 * rule compares: Jumbe's `updated_at` and HubSpot's `lastmodifieddate` as last synced.
 */
export const hubspotContactLinks = pgTable(
  "hubspot_contact_links",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    hubId: text("hub_id").notNull(),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    hubspotId: text("hubspot_id").notNull(),
    /** The Jumbe contact's updated_at when it was last sent or last took HubSpot's values. */
    jumbeSyncedAt: timestamp("jumbe_synced_at", { withTimezone: true }).notNull(),
    /** HubSpot's lastmodifieddate as last seen (after Jumbe's own write, or read). */
    hubspotModifiedAt: timestamp("hubspot_modified_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.hubId, t.contactId] }),
    uniqueIndex("hubspot_contact_links_hubspot_idx").on(t.organizationId, t.hubId, t.hubspotId),
  ],
);

/** A WhatsApp message logged on its HubSpot contact as a communication: once (decision 083). */
export const hubspotLoggedMessages = pgTable(
  "hubspot_logged_messages",
  {
    /**
     * Deleted with its message; no foreign key: a trigger checks and cascades it, as it will across messages'
     * monthly partitions (decision 180).
     */
    messageId: uuid("message_id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    hubId: text("hub_id").notNull(),
    communicationId: text("communication_id").notNull(),
    loggedAt: timestamp("logged_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("hubspot_logged_messages_org_idx").on(t.organizationId)],
);

/** A HubSpot list or search the organisation follows as a Jumbe segment (its members carry `tag`). */
export const hubspotSegmentSources = pgTable(
  "hubspot_segment_sources",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    segmentId: uuid("segment_id")
      .notNull()
      .references(() => segments.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["list", "search"] }).notNull(),
    /** The list's id (kind list). */
    listId: text("list_id"),
    /** The search's filterGroups (kind search). */
    search: jsonb("search").$type<unknown[]>(),
    name: text("name").notNull(),
    tag: text("tag").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("hubspot_segment_sources_tag_idx").on(t.organizationId, t.tag)],
);
