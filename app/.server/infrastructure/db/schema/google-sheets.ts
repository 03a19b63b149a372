import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";

/** When the export runs by itself: not at all, every hour, every day. */
export const GOOGLE_SHEETS_SCHEDULES = ["off", "hourly", "daily"] as const;
/** What an export appends: the contacts, the message log. Each has its own tab and cursor. */
export const GOOGLE_SHEETS_STREAMS = ["contacts", "messages"] as const;

/**
 * The batch appended to Google and not yet recorded: written before the append, cleared in the
 * transaction that records it. Found on a resume, the sheet's last row tells whether it landed.
 */
export interface GoogleSheetsPendingBatch {
  stream: (typeof GOOGLE_SHEETS_STREAMS)[number];
  /** The header row rather than data rows. */
  header: boolean;
  rows: number;
  /** Column A of the batch's last row: a contact's or message's id, or the header's first cell. */
  lastKey: string;
  /** The cursor once it is recorded. */
  cursor: { at?: string; id?: string };
}

/**
 * One organisation's Google Sheets export and import (issue 45, decision 085): the spreadsheet,
 * what goes to it and when, and where each stream's export got to. The cursors move in the same
 * transaction as the batch record (google_sheets_export_batches), so a crash or a 429 resumes
 * exactly where it stopped.
 */
export const googleSheetsExports = pgTable("google_sheets_exports", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  spreadsheetId: text("spreadsheet_id"),
  spreadsheetTitle: text("spreadsheet_title"),
  spreadsheetUrl: text("spreadsheet_url"),
  exportContacts: boolean("export_contacts").notNull().default(true),
  exportMessages: boolean("export_messages").notNull().default(true),
  schedule: text("schedule", { enum: GOOGLE_SHEETS_SCHEDULES }).notNull().default("off"),
  /** The next scheduled export; null when the schedule is off. */
  nextRunAt: timestamp("next_run_at", { withTimezone: true }),
  /** Contacts: the last exported contact's (created_at, id). */
  contactsAfterAt: timestamp("contacts_after_at", { withTimezone: true, precision: 6 }),
  contactsAfterId: uuid("contacts_after_id"),
  contactsHeader: boolean("contacts_header").notNull().default(false),
  /** Messages: the last exported message's (created_at, id). */
  messagesAfterAt: timestamp("messages_after_at", { withTimezone: true, precision: 6 }),
  messagesAfterId: uuid("messages_after_id"),
  messagesHeader: boolean("messages_header").notNull().default(false),
  pending: jsonb("pending").$type<GoogleSheetsPendingBatch>(),
  rowsExported: bigint("rows_exported", { mode: "number" }).notNull().default(0),
  lastExportAt: timestamp("last_export_at", { withTimezone: true }),
  lastExportRows: integer("last_export_rows"),
  /** queued: a job will run it (again, after a 429 or 5xx); running: a job works on it; idle otherwise. */
  exportState: text("export_state", { enum: ["idle", "queued", "running"] })
    .notNull()
    .default("idle"),
  lastError: text("last_error"),
  lastErrorAt: timestamp("last_error_at", { withTimezone: true }),
  importRange: text("import_range"),
  /**
   * The sheet Jumbe made for an import ("Create a new sheet", issue 73): the header row written, the
   * business pastes its contacts under it. drive.file reaches it because Jumbe created it.
   */
  importSpreadsheetId: text("import_spreadsheet_id"),
  importSpreadsheetTitle: text("import_spreadsheet_title"),
  importSpreadsheetUrl: text("import_spreadsheet_url"),
  /** The latest import from a sheet (contact_imports.id): its summary shows on the page. */
  lastImportId: uuid("last_import_id"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Each batch appended to a sheet, recorded in the transaction that moves its stream's cursor. */
export const googleSheetsExportBatches = pgTable(
  "google_sheets_export_batches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    spreadsheetId: text("spreadsheet_id").notNull(),
    stream: text("stream", { enum: GOOGLE_SHEETS_STREAMS }).notNull(),
    header: boolean("header").notNull().default(false),
    rows: integer("rows").notNull(),
    firstKey: text("first_key").notNull(),
    lastKey: text("last_key").notNull(),
    /** Google's updatedRange ("Contacts!A2:G501"); empty for a batch found landed on a resume. */
    updatedRange: text("updated_range").notNull().default(""),
    createdAt: createdAt(),
  },
  (table) => [index("google_sheets_export_batches_org_idx").on(table.organizationId, table.createdAt)],
);
