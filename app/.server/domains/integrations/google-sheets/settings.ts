import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { Refusal } from "../../../infrastructure/refusal";
import { recordActivity } from "../../activity";
import { SHEETS_SCHEDULES as GOOGLE_SHEETS_SCHEDULES, SPREADSHEET_TITLE_MAX, type SheetsSchedule } from "~/lib/google-sheets";
import type { IntegrationActor } from "../connections";
import { GOOGLE_SHEETS_ID, googleRefusal, spreadsheetIdOf, withSheetsToken } from "./google-call";
import { SHEET_TABS } from "./export";
import { tokenForUse } from "../tokens";
import { m } from "~/paraglide/messages";

export { GOOGLE_SHEETS_SCHEDULES, SPREADSHEET_TITLE_MAX, type SheetsSchedule };
export const SHEETS_EXPORT_QUEUE = "google-sheets.export";
export const SHEETS_SCHEDULE_QUEUE = "google-sheets.schedule";
export const SCHEDULE_SECONDS: Record<Exclude<SheetsSchedule, "off">, number> = { hourly: 3600, daily: 86_400 };

const refuse = (status: 400 | 404 | 409 | 422, code: string, message: string, field?: string) =>
  new Refusal({ domain: "integration", status, code, message, field });

/** The settings and progress as the page shows them. */
export interface SheetsSettingsView {
  spreadsheetId: string | null;
  spreadsheetTitle: string | null;
  spreadsheetUrl: string | null;
  exportContacts: boolean;
  exportMessages: boolean;
  schedule: SheetsSchedule;
  nextRunAt: string | null;
  exportState: "idle" | "queued" | "running";
  rowsExported: number;
  lastExportAt: string | null;
  lastExportRows: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
  importRange: string | null;
  lastImportId: string | null;
  /** The sheet Jumbe made for imports ("Create a new sheet"), if any. */
  importSpreadsheetId: string | null;
  importSpreadsheetTitle: string | null;
  importSpreadsheetUrl: string | null;
}

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

export async function sheetsSettings(organizationId: string): Promise<SheetsSettingsView> {
  const [row] = await queryRows<{
    spreadsheet_id: string | null;
    spreadsheet_title: string | null;
    spreadsheet_url: string | null;
    export_contacts: boolean;
    export_messages: boolean;
    schedule: SheetsSchedule;
    next_run_at: string | Date | null;
    export_state: SheetsSettingsView["exportState"];
    rows_exported: number | string;
    last_export_at: string | Date | null;
    last_export_rows: number | null;
    last_error: string | null;
    last_error_at: string | Date | null;
    import_range: string | null;
    last_import_id: string | null;
    import_spreadsheet_id: string | null;
    import_spreadsheet_title: string | null;
    import_spreadsheet_url: string | null;
  }>(db(), sql`select * from google_sheets_exports where organization_id = ${organizationId}`);
  return {
    spreadsheetId: row?.spreadsheet_id ?? null,
    spreadsheetTitle: row?.spreadsheet_title ?? null,
    spreadsheetUrl: row?.spreadsheet_url ?? null,
    exportContacts: row?.export_contacts ?? true,
    exportMessages: row?.export_messages ?? true,
    schedule: row?.schedule ?? "off",
    nextRunAt: iso(row?.next_run_at ?? null),
    exportState: row?.export_state ?? "idle",
    rowsExported: Number(row?.rows_exported ?? 0),
    lastExportAt: iso(row?.last_export_at ?? null),
    lastExportRows: row?.last_export_rows ?? null,
    lastError: row?.last_error ?? null,
    lastErrorAt: iso(row?.last_error_at ?? null),
    importRange: row?.import_range ?? null,
    lastImportId: row?.last_import_id ?? null,
    importSpreadsheetId: row?.import_spreadsheet_id ?? null,
    importSpreadsheetTitle: row?.import_spreadsheet_title ?? null,
    importSpreadsheetUrl: row?.import_spreadsheet_url ?? null,
  };
}

/** 404 unless the organisation has Google Sheets connected. */
export async function requireSheetsConnection(organizationId: string) {
  const rows = await queryRows<{ account_label: string | null }>(
    db(),
    sql`select account_label from integration_connections where organization_id = ${organizationId} and provider = ${GOOGLE_SHEETS_ID} and status = 'connected'`,
  );
  if (!rows.length) throw refuse(404, "not_connected", m.integrations_not_connected());
  return { accountLabel: rows[0]!.account_label };
}

/** Google's answer for a person's request, or its refusal in words (never a 500). */
export async function askGoogle<T>(organizationId: string, work: Parameters<typeof withSheetsToken<T>>[1]): Promise<T> {
  try {
    return await withSheetsToken(organizationId, work);
  } catch (error) {
    const refusal = googleRefusal(error);
    if (refusal) throw refusal;
    throw error;
  }
}

/** A new spreadsheet starts at the beginning: cursors, headers and the pending mark reset. */
async function saveSpreadsheet(actor: IntegrationActor, sheet: { spreadsheetId: string; title: string; url: string }) {
  await db().execute(sql`
    insert into google_sheets_exports (organization_id, spreadsheet_id, spreadsheet_title, spreadsheet_url)
    values (${actor.organizationId}, ${sheet.spreadsheetId}, ${sheet.title}, ${sheet.url || null})
    on conflict (organization_id) do update set spreadsheet_id = excluded.spreadsheet_id, spreadsheet_title = excluded.spreadsheet_title,
      spreadsheet_url = excluded.spreadsheet_url, contacts_after_at = null, contacts_after_id = null, contacts_header = false,
      messages_after_at = null, messages_after_id = null, messages_header = false, pending = null, last_error = null,
      last_error_at = null, updated_at = now()`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Google Sheets spreadsheet chosen",
    details: `${sheet.title} (${sheet.spreadsheetId})`,
    meta: actor.meta,
  });
}

/** Creates the export's spreadsheet in the business's Drive, named as it says, with a tab per stream. */
export async function createExportSpreadsheet(actor: IntegrationActor, title: string) {
  await requireSheetsConnection(actor.organizationId);
  const name = title.replace(/\p{Cc}/gu, " ").trim();
  if (!name || name.length > SPREADSHEET_TITLE_MAX)
    throw refuse(400, "invalid_title", m.sheets_title_required({ max: SPREADSHEET_TITLE_MAX }), "title");
  const made = await askGoogle(actor.organizationId, (token, client) =>
    client.createSpreadsheet(token, name, [SHEET_TABS.contacts, SHEET_TABS.messages]),
  );
  const sheet = { spreadsheetId: made.spreadsheetId, title: made.title || name, url: made.url };
  await saveSpreadsheet(actor, sheet);
  return sheet;
}

/** The tab and header row of the sheet Jumbe makes for an import: the columns the import maps by itself. */
export const IMPORT_TAB = "Contacts";
export const IMPORT_HEADERS = ["Name", "Phone", "Tags", "Language", "Notes"];
export const IMPORT_SHEET_RANGE = `${IMPORT_TAB}!A:E`;

/**
 * "Create a new sheet" (issue 73, decision 109): a spreadsheet in the business's Drive made by Jumbe,
 * so drive.file reaches it without the Picker, with the import's header row. The business pastes its
 * contacts under it (from a sheet made elsewhere, which Jumbe cannot open without the Picker) and
 * imports; the page remembers it as the import's sheet and range.
 */
export async function createImportSpreadsheet(actor: IntegrationActor, title: string) {
  await requireSheetsConnection(actor.organizationId);
  const name = title.replace(/\p{Cc}/gu, " ").trim();
  if (!name || name.length > SPREADSHEET_TITLE_MAX)
    throw refuse(400, "invalid_title", m.sheets_title_required({ max: SPREADSHEET_TITLE_MAX }), "title");
  const made = await askGoogle(actor.organizationId, async (token, client) => {
    const sheet = await client.createSpreadsheet(token, name, IMPORT_TAB);
    await client.updateValues(token, sheet.spreadsheetId, `${IMPORT_TAB}!A1`, [IMPORT_HEADERS]);
    return sheet;
  });
  const sheet = { spreadsheetId: made.spreadsheetId, title: made.title || name, url: made.url };
  await db().execute(sql`
    insert into google_sheets_exports (organization_id, import_spreadsheet_id, import_spreadsheet_title, import_spreadsheet_url, import_range)
    values (${actor.organizationId}, ${sheet.spreadsheetId}, ${sheet.title}, ${sheet.url || null}, ${IMPORT_SHEET_RANGE})
    on conflict (organization_id) do update set import_spreadsheet_id = excluded.import_spreadsheet_id,
      import_spreadsheet_title = excluded.import_spreadsheet_title, import_spreadsheet_url = excluded.import_spreadsheet_url,
      import_range = excluded.import_range, updated_at = now()`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Google Sheets import sheet created",
    details: `${sheet.title} (${sheet.spreadsheetId})`,
    meta: actor.meta,
  });
  return sheet;
}

/**
 * The access token the Google Picker opens with (Google's Picker runs in the browser and needs the
 * user's OAuth token: `setOAuthToken`). drive.file only; refreshed first when it is about to end.
 */
export async function pickerAccessToken(organizationId: string) {
  await requireSheetsConnection(organizationId);
  return tokenForUse(organizationId, GOOGLE_SHEETS_ID);
}

/** A spreadsheet the business already has, by id or link: it must open, and have the tabs the export writes to. */
export async function chooseExistingSpreadsheet(actor: IntegrationActor, input: string) {
  await requireSheetsConnection(actor.organizationId);
  const id = spreadsheetIdOf(input);
  if (!id) throw refuse(400, "invalid_spreadsheet", m.sheets_spreadsheet_invalid(), "spreadsheet");
  const found = await askGoogle(actor.organizationId, (token, client) => client.getSpreadsheet(token, id));
  const missing = Object.values(SHEET_TABS).filter((tab) => !found.sheets.includes(tab));
  if (missing.length) throw refuse(422, "missing_tabs", m.sheets_missing_tabs({ tabs: missing.join(", ") }), "spreadsheet");
  const sheet = { spreadsheetId: found.spreadsheetId, title: found.title || id, url: found.url };
  await saveSpreadsheet(actor, sheet);
  return sheet;
}

/** What to export and when. At least one of contacts and messages. */
export async function saveExportSettings(
  actor: IntegrationActor,
  input: { exportContacts: boolean; exportMessages: boolean; schedule: string },
) {
  await requireSheetsConnection(actor.organizationId);
  if (!(GOOGLE_SHEETS_SCHEDULES as readonly string[]).includes(input.schedule))
    throw refuse(400, "invalid_schedule", m.sheets_schedule_invalid(), "schedule");
  if (!input.exportContacts && !input.exportMessages) throw refuse(400, "nothing_to_export", m.sheets_nothing_to_export(), "what");
  const schedule = input.schedule as SheetsSchedule;
  const next = schedule === "off" ? null : SCHEDULE_SECONDS[schedule];
  await db().execute(sql`
    insert into google_sheets_exports (organization_id, export_contacts, export_messages, schedule, next_run_at)
    values (${actor.organizationId}, ${input.exportContacts}, ${input.exportMessages}, ${schedule},
            case when ${next}::int is null then null else now() + make_interval(secs => ${next}::int) end)
    on conflict (organization_id) do update set export_contacts = excluded.export_contacts, export_messages = excluded.export_messages,
      schedule = excluded.schedule, next_run_at = excluded.next_run_at, updated_at = now()`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Google Sheets export settings saved",
    details: `${schedule}`,
    meta: actor.meta,
  });
}

/** Queues the export job, once per organisation at a time, in the caller's transaction when given. */
export async function enqueueSheetsExport(organizationId: string, executor?: Executor) {
  const run = async (tx: Executor) => {
    await tx.execute(
      sql`update google_sheets_exports set export_state = 'queued' where organization_id = ${organizationId} and export_state = 'idle'`,
    );
    return enqueueJob(SHEETS_EXPORT_QUEUE, { organizationId }, { executor: tx, uniqueKey: `google-sheets-export:${organizationId}` });
  };
  return executor ? run(executor) : db().transaction(run);
}

/** "Export now": a spreadsheet must be chosen; an export already waiting is not queued twice. */
export async function exportNow(actor: IntegrationActor) {
  await requireSheetsConnection(actor.organizationId);
  const settings = await sheetsSettings(actor.organizationId);
  if (!settings.spreadsheetId) throw refuse(409, "no_spreadsheet", m.sheets_spreadsheet_required());
  const id = await enqueueSheetsExport(actor.organizationId);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Google Sheets export queued",
    details: `${settings.spreadsheetTitle ?? settings.spreadsheetId}`,
    meta: actor.meta,
  });
  return { queued: id !== null };
}

/**
 * The scheduler's recurring job: every organisation whose scheduled export is due (and still
 * connected) gets its export job, and its next time moved on, in one transaction.
 */
export async function enqueueDueSheetsExports(limit = 100): Promise<number> {
  return db().transaction(async (tx) => {
    const due = await queryRows<{ organization_id: string }>(
      tx,
      sql`
      update google_sheets_exports e set next_run_at = now() + make_interval(secs => case e.schedule when 'hourly' then 3600 else 86400 end)
      where e.organization_id in (
        select x.organization_id from google_sheets_exports x
        join integration_connections c on c.organization_id = x.organization_id and c.provider = ${GOOGLE_SHEETS_ID} and c.status = 'connected'
        where x.schedule <> 'off' and x.spreadsheet_id is not null and x.next_run_at <= now()
        order by x.next_run_at limit ${limit} for update of x skip locked)
      returning e.organization_id`,
    );
    for (const row of due) await enqueueSheetsExport(row.organization_id, tx);
    return due.length;
  });
}
