import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { words } from "../../../infrastructure/words/said";
import { queryRows } from "../../../infrastructure/db/query";
import { a1Range, GoogleError, type CellValue } from "../../../infrastructure/clients/google-sheets";
import { RetryLater } from "../../../infrastructure/jobs/queue";
import { isRefusal } from "../../../infrastructure/refusal";
import { recordActivity } from "../../activity";
import { recordSync } from "../connections";
import type { GoogleSheetsPendingBatch } from "../../../infrastructure/db/schema/google-sheets";
import { GOOGLE_SHEETS_ID, withSheetsToken } from "./google-call";

export type SheetsStream = GoogleSheetsPendingBatch["stream"];
type Cursor = GoogleSheetsPendingBatch["cursor"];

/** Rows per append, and the JSON size a batch stops at (Google advises bodies of at most 2 MB). */
export const EXPORT_BATCH_ROWS = 500;
const EXPORT_BATCH_BYTES = 1_000_000;
/** The tabs the export writes to: data in the spreadsheet, the same in every language. */
export const SHEET_TABS: Record<SheetsStream, string> = { contacts: "Contacts", messages: "Messages" };
export const HEADERS: Record<SheetsStream, string[]> = {
  contacts: ["Contact ID", "Name", "Phone", "Tags", "Language", "Consent", "Created"],
  messages: ["Message ID", "Time", "Direction", "Status", "Phone", "Contact", "Type", "Body", "Source"],
};

interface ExportRow {
  organization_id: string;
  spreadsheet_id: string | null;
  spreadsheet_title: string | null;
  export_contacts: boolean;
  export_messages: boolean;
  contacts_after_at: string | null;
  contacts_after_id: string | null;
  contacts_header: boolean;
  messages_after_at: string | null;
  messages_after_id: string | null;
  messages_header: boolean;
  pending: GoogleSheetsPendingBatch | null;
}

async function readExport(organizationId: string) {
  const [row] = await queryRows<ExportRow>(
    db(),
    sql`
    select organization_id, spreadsheet_id, spreadsheet_title, export_contacts, export_messages,
           contacts_after_at::text as contacts_after_at, contacts_after_id::text as contacts_after_id, contacts_header,
           messages_after_at::text as messages_after_at, messages_after_id::text as messages_after_id, messages_header, pending
    from google_sheets_exports where organization_id = ${organizationId}`,
  );
  return row ?? null;
}

/**
 * The moment before which every row is committed: the start of the oldest transaction still running
 * elsewhere (a row's created_at is its transaction's start), so a row committed late is never jumped
 * over by the cursor. PGlite has one connection: now().
 */
async function commitHorizon(): Promise<string> {
  try {
    const [row] = await queryRows<{ horizon: string }>(
      db(),
      sql`select least(now(), (select min(xact_start) from pg_stat_activity
                               where pid <> pg_backend_pid() and xact_start is not null and datname = current_database()))::text as horizon`,
    );
    return row!.horizon;
  } catch {
    const [row] = await queryRows<{ horizon: string }>(db(), sql`select now()::text as horizon`);
    return row!.horizon;
  }
}

interface SourceRow {
  at: string;
  id: string;
  cells: CellValue[];
}

const iso = (value: string | Date | null) => (value === null ? "" : new Date(value).toISOString());

/** The next contacts after the cursor, oldest first, as sheet rows (text stays text: RAW). */
async function nextContacts(organizationId: string, after: Cursor, horizon: string, limit: number): Promise<SourceRow[]> {
  const rows = await queryRows<{
    at: string;
    id: string;
    name: string;
    phone: string | null;
    tags: string[];
    language: string | null;
    opt_in: string;
    created_at: string | Date;
  }>(
    db(),
    sql`
    select created_at::text as at, id::text as id, name, phone, tags, language, opt_in, created_at
    from contacts
    where organization_id = ${organizationId} and created_at < ${horizon}::timestamptz
      and (${after.at ?? null}::timestamptz is null or (created_at, id) > (${after.at ?? null}::timestamptz, ${after.id ?? null}::uuid))
    order by created_at, id limit ${limit}`,
  );
  return rows.map((r) => ({
    at: r.at,
    id: r.id,
    cells: [r.id, r.name, r.phone ?? "", r.tags.join(", "), r.language ?? "", r.opt_in, iso(r.created_at)],
  }));
}

/** The next messages of the log after the cursor, oldest first. */
async function nextMessages(organizationId: string, after: Cursor, horizon: string, limit: number): Promise<SourceRow[]> {
  const rows = await queryRows<{
    at: string;
    id: string;
    created_at: string | Date;
    direction: string;
    status: string;
    phone: string | null;
    contact: string | null;
    message_type: string;
    body: string;
    source: string | null;
  }>(
    db(),
    sql`
    select m.created_at::text as at, m.id::text as id, m.created_at, m.direction, m.status,
           coalesce(m.recipient_phone, c.phone) as phone, c.name as contact, m.message_type, m.body, m.source
    from messages m left join contacts c on c.id = m.contact_id
    where m.organization_id = ${organizationId} and m.created_at < ${horizon}::timestamptz
      and (${after.at ?? null}::timestamptz is null or (m.created_at, m.id) > (${after.at ?? null}::timestamptz, ${after.id ?? null}::uuid))
    order by m.created_at, m.id limit ${limit}`,
  );
  return rows.map((r) => ({
    at: r.at,
    id: r.id,
    cells: [r.id, iso(r.created_at), r.direction, r.status, r.phone ?? "", r.contact ?? "", r.message_type, r.body, r.source ?? ""],
  }));
}

/** Rows up to the batch's count and size. */
function fitBatch(rows: SourceRow[]): SourceRow[] {
  let bytes = 0;
  const out: SourceRow[] = [];
  for (const row of rows) {
    bytes += JSON.stringify(row.cells).length;
    if (out.length && bytes > EXPORT_BATCH_BYTES) break;
    out.push(row);
  }
  return out;
}

const cursorColumns = (stream: SheetsStream, cursor: Cursor) =>
  stream === "contacts"
    ? sql`contacts_after_at = ${cursor.at ?? null}::timestamptz, contacts_after_id = ${cursor.id ?? null}::uuid`
    : sql`messages_after_at = ${cursor.at ?? null}::timestamptz, messages_after_id = ${cursor.id ?? null}::uuid`;

/**
 * Records a batch Google took: its record, the stream's cursor (or header flag), the count and the
 * pending mark cleared, in one transaction; only while the spreadsheet is still the one written to.
 */
async function recordBatch(
  organizationId: string,
  spreadsheetId: string,
  batch: GoogleSheetsPendingBatch,
  firstKey: string,
  updatedRange: string,
) {
  await db().transaction(async (tx: Executor) => {
    const moved = await queryRows<{ organization_id: string }>(
      tx,
      sql`
      update google_sheets_exports set ${batch.header ? sql`${sql.raw(batch.stream === "contacts" ? "contacts_header" : "messages_header")} = true` : cursorColumns(batch.stream, batch.cursor)},
        rows_exported = rows_exported + ${batch.header ? 0 : batch.rows}, pending = null, updated_at = now()
      where organization_id = ${organizationId} and spreadsheet_id = ${spreadsheetId}
      returning organization_id`,
    );
    if (!moved.length) return;
    await tx.execute(sql`
      insert into google_sheets_export_batches (organization_id, spreadsheet_id, stream, header, rows, first_key, last_key, updated_range)
      values (${organizationId}, ${spreadsheetId}, ${batch.stream}, ${batch.header}, ${batch.rows}, ${firstKey}, ${batch.lastKey}, ${updatedRange})`);
  });
}

/**
 * Appends one batch: first marked pending (so a crash after Google took it is found on the resume),
 * then `values:append` with RAW input (a cell starting with = + - @ stays text) and INSERT_ROWS,
 * then recorded.
 */
async function appendBatch(organizationId: string, spreadsheetId: string, batch: GoogleSheetsPendingBatch, cells: CellValue[][]) {
  await db().execute(sql`
    update google_sheets_exports set pending = ${JSON.stringify(batch)}::jsonb, updated_at = now()
    where organization_id = ${organizationId} and spreadsheet_id = ${spreadsheetId}`);
  const answer = await withSheetsToken(organizationId, (token, client) =>
    client.appendValues(token, spreadsheetId, a1Range(SHEET_TABS[batch.stream], "A1"), cells, "RAW"),
  );
  await recordBatch(organizationId, spreadsheetId, batch, String(cells[0]![0]), answer.updatedRange);
}

/**
 * A batch marked pending when the last run stopped: the sheet's last row says whether Google took it
 * (then it is recorded, not sent again) or not (then the mark is dropped and the rows go again).
 */
async function settlePending(organizationId: string, spreadsheetId: string, pending: GoogleSheetsPendingBatch) {
  const read = await withSheetsToken(organizationId, (token, client) =>
    client.getValues(token, spreadsheetId, a1Range(SHEET_TABS[pending.stream], "A:A")),
  );
  const last = read.values.at(-1)?.[0];
  if (last === pending.lastKey) {
    await recordBatch(organizationId, spreadsheetId, pending, "", "");
    return;
  }
  await db().execute(sql`
    update google_sheets_exports set pending = null, updated_at = now()
    where organization_id = ${organizationId} and spreadsheet_id = ${spreadsheetId}`);
}

/** One stream to its tab: the header once, then batches after the cursor until none is left. Answers the data rows sent. */
async function exportStream(organizationId: string, stream: SheetsStream, horizon: string): Promise<number> {
  let sent = 0;
  for (;;) {
    const state = await readExport(organizationId);
    if (!state?.spreadsheet_id) return sent;
    const spreadsheetId = state.spreadsheet_id;
    if (state.pending) {
      await settlePending(organizationId, spreadsheetId, state.pending);
      continue;
    }
    const headerDone = stream === "contacts" ? state.contacts_header : state.messages_header;
    const cursor: Cursor =
      stream === "contacts"
        ? { at: state.contacts_after_at ?? undefined, id: state.contacts_after_id ?? undefined }
        : { at: state.messages_after_at ?? undefined, id: state.messages_after_id ?? undefined };
    if (!headerDone) {
      const header = HEADERS[stream];
      await appendBatch(organizationId, spreadsheetId, { stream, header: true, rows: 1, lastKey: header[0]!, cursor }, [header]);
      continue;
    }
    const next = stream === "contacts" ? nextContacts : nextMessages;
    const rows = fitBatch(await next(organizationId, cursor, horizon, EXPORT_BATCH_ROWS));
    if (!rows.length) return sent;
    const last = rows.at(-1)!;
    await appendBatch(
      organizationId,
      spreadsheetId,
      { stream, header: false, rows: rows.length, lastKey: last.id, cursor: { at: last.at, id: last.id } },
      rows.map((r) => r.cells),
    );
    sent += rows.length;
  }
}

/** Google asked to wait or failed on its side (429, 5xx, no answer): the job tries again later. */
const isPassing = (error: unknown) =>
  error instanceof GoogleError &&
  (error.kind === "rate_limited" || error.kind === "server" || error.kind === "timeout" || error.kind === "network");

/**
 * The export job's work for one organisation: each chosen stream appended from where it got to.
 * A 429 or 5xx stops it with the place kept and throws RetryLater/the error, so the queue runs it
 * again after Google's wait or its backoff; anything else is the last error, shown on the page.
 */
export async function runSheetsExport(organizationId: string): Promise<{ rows: number } | null> {
  const state = await readExport(organizationId);
  if (!state?.spreadsheet_id) return null;
  const connected = await queryRows(
    db(),
    sql`select 1 from integration_connections where organization_id = ${organizationId} and provider = ${GOOGLE_SHEETS_ID} and status = 'connected'`,
  );
  if (!connected.length) {
    await db().execute(sql`update google_sheets_exports set export_state = 'idle' where organization_id = ${organizationId}`);
    return null;
  }
  await db().execute(
    sql`update google_sheets_exports set export_state = 'running', updated_at = now() where organization_id = ${organizationId}`,
  );
  const horizon = await commitHorizon();
  let rows = 0;
  try {
    if (state.export_contacts) rows += await exportStream(organizationId, "contacts", horizon);
    if (state.export_messages) rows += await exportStream(organizationId, "messages", horizon);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const passing = isPassing(error);
    // Google's refusals (a sheet gone, access taken away) wait for a person; anything else is tried again by the queue.
    const final = !passing && (isRefusal(error) || error instanceof GoogleError);
    await db().execute(sql`
      update google_sheets_exports set last_error = ${reason.slice(0, 500)}, last_error_at = now(),
        export_state = ${final ? "idle" : "queued"}, updated_at = now()
      where organization_id = ${organizationId}`);
    if (passing) {
      await recordActivity({
        organizationId,
        type: "settings",
        status: "warning",
        action: "Google Sheets export paused",
        details: `${reason} (${rows})`,
      });
      if (error instanceof GoogleError && error.kind === "rate_limited") throw new RetryLater(error.retryAfterMs ?? 60_000, reason);
      throw error;
    }
    await recordSync(organizationId, GOOGLE_SHEETS_ID, { ok: false, error: `Export: ${reason}` });
    if (final) return { rows };
    throw error;
  }
  await db().execute(sql`
    update google_sheets_exports set export_state = 'idle', last_export_at = now(), last_export_rows = ${rows},
      last_error = null, last_error_at = null, updated_at = now()
    where organization_id = ${organizationId}`);
  await recordSync(organizationId, GOOGLE_SHEETS_ID, {
    ok: true,
    summary: words("app_activity_detail_sheets_exported", { rows, spreadsheet: state.spreadsheet_title ?? state.spreadsheet_id }),
  });
  return { rows };
}
