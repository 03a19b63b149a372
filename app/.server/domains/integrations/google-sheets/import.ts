import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { Refusal } from "../../../infrastructure/refusal";
import { recordActivity } from "../../activity";
import {
  attributeDefinitions,
  DUPLICATE_POLICIES,
  importFromRows,
  startImport,
  suggestMapping,
  type DuplicatePolicy,
  type ImportView,
} from "../../contacts";
import type { IntegrationActor } from "../connections";
import { spreadsheetIdOf } from "./google-call";
import { askGoogle, requireSheetsConnection } from "./settings";
import { m } from "~/paraglide/messages";

/** At most this many rows are read from a sheet in one import (the CSV upload's own bound is its size). */
export const SHEET_IMPORT_MAX_ROWS = 50_000;
const RANGE = /^(?:'(?:[^']|'')+'|[A-Za-z0-9_ ]{1,100})(?:![A-Z]{1,3}[0-9]*(?::[A-Z]{1,3}[0-9]*)?)?$|^[A-Z]{1,3}[0-9]*:[A-Z]{1,3}[0-9]*$/;

const refuse = (status: 400 | 422, code: string, message: string, field?: string) =>
  new Refusal({ domain: "integration", status, code, message, field });

export interface SheetImportInput {
  spreadsheet: string;
  range: string;
  duplicates: string;
  consentEvidence?: string;
}

/**
 * Contacts from a sheet's range: read with values.get, then through the CSV import's own mapping,
 * checks (phone numbers, duplicates, consent, row errors) and report, as an upload would be. The
 * header row's columns are mapped the way the upload's form first suggests; a sheet without a phone
 * column is refused. Answers the import (queued; its job does the rows).
 */
export async function importContactsFromSheet(actor: IntegrationActor, input: SheetImportInput): Promise<ImportView> {
  await requireSheetsConnection(actor.organizationId);
  const spreadsheetId = spreadsheetIdOf(input.spreadsheet);
  if (!spreadsheetId) throw refuse(400, "invalid_spreadsheet", m.sheets_spreadsheet_invalid(), "spreadsheet");
  const range = input.range.trim();
  if (!RANGE.test(range)) throw refuse(400, "invalid_range", m.sheets_range_invalid(), "range");
  if (!(DUPLICATE_POLICIES as readonly string[]).includes(input.duplicates))
    throw refuse(400, "invalid_duplicates", m.messaging_import_duplicates_required(), "duplicates");
  const read = await askGoogle(actor.organizationId, (token, client) => client.getValues(token, spreadsheetId, range));
  if (read.values.length > SHEET_IMPORT_MAX_ROWS + 1)
    throw refuse(422, "too_many_rows", m.sheets_import_too_many({ max: SHEET_IMPORT_MAX_ROWS }), "range");
  const width = Math.max(0, ...read.values.map((row) => row.length));
  // Google leaves trailing empty cells out: every row made as wide as the widest, as a CSV's would be.
  const rows = read.values.map((row) => [...row, ...Array<string>(width - row.length).fill("")]);
  const created = await importFromRows(actor, `${read.range}.csv`, rows);
  const mapping = suggestMapping(created.columns, await attributeDefinitions(actor.organizationId));
  let started: ImportView;
  try {
    started = await startImport(actor, created.id, {
      mapping,
      duplicates: input.duplicates as DuplicatePolicy,
      consentEvidence: input.consentEvidence?.trim() || null,
    });
  } catch (error) {
    // The import stays as uploaded (its mapping can be chosen on the import's page); said, not lost.
    await db().execute(sql`
      update google_sheets_exports set last_import_id = ${created.id}, import_range = ${range} where organization_id = ${actor.organizationId}`);
    throw error;
  }
  await db().execute(sql`
    insert into google_sheets_exports (organization_id, import_range, last_import_id) values (${actor.organizationId}, ${range}, ${started.id})
    on conflict (organization_id) do update set import_range = excluded.import_range, last_import_id = excluded.last_import_id, updated_at = now()`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Google Sheets import started",
    details: `${read.range} (${spreadsheetId})`,
    meta: actor.meta,
  });
  return started;
}
