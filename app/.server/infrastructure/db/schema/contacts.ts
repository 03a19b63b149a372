import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp, uuid, integer } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { contacts } from "./messaging";

/**
 * The consent ledger: append-only opt-in and opt-out events per contact, with where each came from
 * and the evidence. A contact's `opt_in` is its latest event. Erasure removes a person's events with
 * them (the tombstone and the activity log keep that it happened).
 */
export const consentEvents = pgTable(
  "consent_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["opted_in", "opted_out"] }).notNull(),
    source: text("source", { enum: ["import", "form", "api", "keyword", "manual", "meta"] }).notNull(),
    /** What shows the person agreed or refused: the keyword message, the form, the import's note. */
    evidence: text("evidence").notNull().default(""),
    recordedBy: uuid("recorded_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("consent_events_contact_idx").on(t.contactId, t.createdAt, t.id)],
);

/** A tenant's custom contact fields: their values live in contacts.attributes under `key`. */
export const contactAttributes = pgTable(
  "contact_attributes",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    label: text("label").notNull(),
    type: text("type", { enum: ["text", "number", "date", "boolean"] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.key] })],
);

/** Saved filters for campaigns, counted live. */
export const segments = pgTable(
  "segments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The contact filter (tags, attributes, opt-in, last seen, language) as the Contacts tab's query reads it. */
    filter: jsonb("filter").$type<Record<string, unknown>>().notNull(),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("segments_org_idx").on(t.organizationId, t.name)],
);

/** A CSV import: the uploaded file in storage, its mapping, its progress and its report. */
export const contactImports = pgTable(
  "contact_imports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    fileName: text("file_name").notNull(),
    storageKey: text("storage_key").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    /** The file's header row, read at upload, for the mapping step. */
    columns: jsonb("columns").$type<string[]>().notNull(),
    /** Column → field (name, phone, tags, language, notes, or attr:<key>); unmapped columns are ignored. */
    mapping: jsonb("mapping").$type<Record<string, string>>(),
    duplicates: text("duplicates", { enum: ["skip", "update", "merge_tags"] }),
    consentSource: text("consent_source"),
    status: text("status", { enum: ["uploaded", "queued", "running", "done", "failed"] })
      .notNull()
      .default("uploaded"),
    /** Bytes of the file read so far: the progress bar. */
    bytesRead: bigint("bytes_read", { mode: "number" }).notNull().default(0),
    created: integer("created").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    skipped: integer("skipped").notNull().default(0),
    invalid: integer("invalid").notNull().default(0),
    /** The rejected rows with their reason, as CSV, in storage. */
    rejectedKey: text("rejected_key"),
    error: text("error"),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("contact_imports_org_idx").on(t.organizationId, t.createdAt.desc())],
);

/**
 * An erased person (DPA 2019 s.40): only a keyed hash of their number, so an import cannot add them
 * again without fresh consent, and nothing that identifies them.
 */
export const contactTombstones = pgTable(
  "contact_tombstones",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    phoneHash: text("phone_hash").notNull(),
    erasedAt: timestamp("erased_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.phoneHash] })],
);

/**
 * Every tag the tenant's contacts carry, for the tag filter: reading the distinct tags of a million
 * contacts costs too much on every page. Kept by triggers on contacts (migration 0022: inserts and
 * updates add their tags, in one statement per statement); housekeeping removes tags no contact
 * carries any more.
 */
export const contactTags = pgTable(
  "contact_tags",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    tag: text("tag").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.tag] })],
);
