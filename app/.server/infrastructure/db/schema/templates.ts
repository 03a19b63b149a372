import { sql } from "drizzle-orm";
import { customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { whatsappAccounts } from "./whatsapp";
import { TEMPLATE_STATUSES } from "../../../../lib/templates";

/**
 * A tenant's message templates. A draft may have no WhatsApp account yet; a submitted template
 * belongs to the account (WABA) it was submitted to and carries Meta's id. Meta's name rule (one
 * name per WABA and language) is a unique index; drafts without an account share the tenant's
 * own namespace. `components` is Meta's shape, as sent and as Meta's API returns it.
 */
export const messageTemplates = pgTable(
  "message_templates",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    accountId: uuid("account_id").references(() => whatsappAccounts.id, { onDelete: "set null" }),
    wabaId: text("waba_id"),
    metaTemplateId: text("meta_template_id"),
    name: text("name").notNull(),
    language: text("language").notNull(),
    category: text("category", { enum: ["AUTHENTICATION", "UTILITY", "MARKETING"] }).notNull(),
    /** Set when Meta moved the template to another category (template_category_update). */
    previousCategory: text("previous_category"),
    status: text("status", { enum: TEMPLATE_STATUSES }).notNull().default("draft"),
    components: jsonb("components").$type<Record<string, unknown>[]>().notNull(),
    /** Meta's reason code (INVALID_FORMAT...) and, when given, its explanation. */
    rejectionReason: text("rejection_reason"),
    /** GREEN, YELLOW, RED or UNKNOWN: message_template_quality_update. */
    qualityScore: text("quality_score"),
    /** The last status event from Meta (APPROVED, FLAGGED...) and when Meta says it happened: later events win. */
    metaEvent: text("meta_event"),
    metaEventAt: timestamp("meta_event_at", { withTimezone: true }),
    /** What went wrong the last time Jumbe called Meta for this template (Meta's words), until it next succeeds. */
    lastError: text("last_error"),
    /** meta: imported from Meta (made in Business Manager); jumbe: made here. */
    source: text("source", { enum: ["jumbe", "meta"] })
      .notNull()
      .default("jumbe"),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    submittedAt: timestamp("submitted_at", { withTimezone: true }),
    /** Being deleted: hidden, and deleted at Meta by the next try or sync if the first was cut short. */
    deletingAt: timestamp("deleting_at", { withTimezone: true }),
    syncedAt: timestamp("synced_at", { withTimezone: true }),
    /** Platform review (status held): the administrator's decision, and the reason the tenant sees when it was returned. */
    platformReviewedAt: timestamp("platform_reviewed_at", { withTimezone: true }),
    platformReviewedBy: uuid("platform_reviewed_by"),
    platformRejection: text("platform_rejection"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("message_templates_name_idx").on(t.organizationId, sql`coalesce(${t.wabaId}, '')`, t.name, t.language),
    uniqueIndex("message_templates_meta_id_idx")
      .on(t.organizationId, t.metaTemplateId)
      .where(sql`meta_template_id is not null`),
    index("message_templates_list_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    // The preview's chooser (queries.ts templateChoices): approved first, then by name, without
    // sorting every template of the tenant.
    index("message_templates_choice_idx")
      .on(t.organizationId, sql`(${t.status} <> 'approved')`, t.name, t.language)
      .where(sql`deleting_at is null`),
    index("message_templates_waba_idx").on(t.wabaId),
    // The admin console's search by any part of the name, across tenants.
    index("message_templates_name_trgm_idx").using("gin", sql`${t.name} gin_trgm_ops`),
    // The admin console's Templates tab across every tenant, newest submission first (admin/templates/queries.ts):
    // a page of it reads 26 index entries instead of sorting every template.
    index("message_templates_submitted_idx")
      .on(sql`coalesce(${t.submittedAt}, ${t.createdAt}) desc nulls last`, t.id.desc())
      .where(sql`deleting_at is null`),
  ],
);

export type MessageTemplate = typeof messageTemplates.$inferSelect;

/** PostgreSQL's bytea, read and written as a Buffer (pg gives Buffers, PGlite Uint8Arrays). */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  toDriver: (value) => value,
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * The sample file of a media header (IMAGE, VIDEO, DOCUMENT), kept in the database so every
 * instance can submit and show it (decision 019). One per template; a sample uploaded before its
 * template exists (the public API, a form sent back with a problem) has no template yet, and
 * housekeeping deletes it after a day. `metaHandle` is Meta's upload handle for the sample and
 * `uploadedAt` when Meta issued it: a submission reuses a fresh one and uploads again otherwise.
 */
export const templateMedia = pgTable(
  "template_media",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    templateId: uuid("template_id").references(() => messageTemplates.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    bytes: bytea("bytes").notNull(),
    metaHandle: text("meta_handle"),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("template_media_template_idx")
      .on(t.templateId)
      .where(sql`template_id is not null`),
    index("template_media_organization_idx").on(t.organizationId, t.createdAt),
  ],
);

export type TemplateMedia = typeof templateMedia.$inferSelect;
