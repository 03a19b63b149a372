import path from "node:path";
import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { DUPLICATE_POLICIES, IMPORT_FIELDS, IMPORT_FILE_FIELD, IMPORT_MAX_BYTES, type DuplicatePolicy } from "~/lib/contact-import";
import { BODY_LIMITS } from "../../infrastructure/http/body-limit";
import { MultipartError, MultipartReader } from "../../infrastructure/http/multipart";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { recordActivity, csvRow } from "../activity";
import { englishOf, words, type Message, type MessageKey } from "../../infrastructure/words/said";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { fileStorage, StorageLimitError } from "../../infrastructure/storage";
import { attributeDefinitions, attributeValue, type AttributeDefinition, type AttributeValue } from "./attributes";
import { EVIDENCE_MAX, recordConsent } from "./consent";
import { contactName, contactPhone, contactTags, NOTES_MAX } from "./fields";
import { phoneHash } from "./manage";
import { CsvError, CsvParser, csvRecords, headerColumns, type CsvRecord } from "./csv/reader";
import { Refusal, isRefusal } from "../../infrastructure/refusal";
import { inLocale } from "../../infrastructure/http/display-zone";
import { m } from "~/paraglide/messages";
import { baseLocale, getLocale, isLocale } from "~/paraglide/runtime";

const MB = 1024 * 1024;
export { DUPLICATE_POLICIES, IMPORT_FIELDS, IMPORT_FILE_FIELD, IMPORT_MAX_BYTES, type DuplicatePolicy };
/** The upload's whole body: the file and the form's framing. */
export const IMPORT_BODY_MAX_BYTES = BODY_LIMITS.contactImport;
export const IMPORT_QUEUE = "contacts.import";
export const IMPORT_ATTEMPTS = 5;
/** Rows written per transaction: each batch moves the counts and the position reached together. */
export const IMPORT_BATCH_ROWS = 1000;
export type ImportStatus = "uploaded" | "queued" | "running" | "done" | "failed";

/** Why an import is refused: an HTTP status and a sentence for people. */
export const refuseImport = (status: 400 | 404 | 409 | 413 | 422, message: string) => new Refusal({ domain: "import", status, message });

export interface ImportActor {
  organizationId: string;
  userId?: string | null;
  meta?: RequestMeta;
}

export interface ImportView {
  id: string;
  fileName: string;
  size: number;
  columns: string[];
  mapping: Record<string, string> | null;
  duplicates: DuplicatePolicy | null;
  consentEvidence: string | null;
  status: ImportStatus;
  bytesRead: number;
  created: number;
  updated: number;
  skipped: number;
  invalid: number;
  hasRejected: boolean;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

interface ImportRow {
  id: string;
  organization_id: string;
  created_by: string | null;
  file_name: string;
  storage_key: string;
  size: number | string;
  columns: string[];
  mapping: Record<string, string> | null;
  duplicates: DuplicatePolicy | null;
  consent_source: string | null;
  status: ImportStatus;
  bytes_read: number | string;
  created: number;
  updated: number;
  skipped: number;
  invalid: number;
  rejected_key: string | null;
  error: string | null;
  created_at: string | Date;
  finished_at: string | Date | null;
}

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

function importView(row: ImportRow): ImportView {
  return {
    id: row.id,
    fileName: row.file_name,
    size: Number(row.size),
    columns: row.columns,
    mapping: row.mapping,
    duplicates: row.duplicates,
    consentEvidence: row.consent_source,
    status: row.status,
    bytesRead: Number(row.bytes_read),
    created: row.created,
    updated: row.updated,
    skipped: row.skipped,
    invalid: row.invalid,
    hasRejected: !!row.rejected_key,
    error: errorWords(row.error),
    createdAt: iso(row.created_at)!,
    finishedAt: iso(row.finished_at),
  };
}

/** What a duplicate does, as the activity log names it. */
const DUPLICATES_WORDS: Record<DuplicatePolicy, MessageKey> = {
  skip: "app_activity_detail_duplicates_skip",
  update: "app_activity_detail_duplicates_update",
  merge_tags: "app_activity_detail_duplicates_merge_tags",
};

/** Why an import failed, stored as Jumbe says it (English: the job runs outside any request). */
const stoppedOnError = () => m.messaging_import_stopped_error({}, { locale: baseLocale });

/** A stored failure in the reader's language (one Jumbe does not know shows as stored). */
const errorWords = (error: string | null) => (error !== null && error === stoppedOnError() ? m.messaging_import_stopped_error() : error);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = () => refuseImport(404, m.messaging_import_not_found());

async function readImportRow(executor: Executor, organizationId: string | null, id: string, lock = false) {
  if (!UUID.test(id)) return null;
  const rows = await queryRows<ImportRow>(
    executor,
    sql`select * from contact_imports where id = ${id} ${organizationId ? sql`and organization_id = ${organizationId}` : sql``} ${lock ? sql`for update` : sql``}`,
  );
  return rows[0] ?? null;
}

/** One import of the tenant; another tenant's id, or none, is 404. */
export async function getImport(organizationId: string, id: string): Promise<ImportView> {
  const row = await readImportRow(db(), organizationId, id);
  if (!row) throw notFound();
  return importView(row);
}

/** The tenant's latest imports, newest first. */
export async function recentImports(organizationId: string, limit = 10): Promise<ImportView[]> {
  const rows = await queryRows<ImportRow>(
    db(),
    sql`select * from contact_imports where organization_id = ${organizationId} order by created_at desc, id desc limit ${limit}`,
  );
  return rows.map(importView);
}

/**
 * Whether one of the tenant's imports is queued or running, or ended (done or failed, its batches
 * committed) within the last `withinMs`: its rows were written by a job, not by a request.
 */
export async function importsUnderWay(organizationId: string, withinMs: number) {
  const rows = await queryRows<{ id: string }>(
    db(),
    sql`
      select id from contact_imports
      where organization_id = ${organizationId}
        and (status in ('queued', 'running') or finished_at > now() - make_interval(secs => ${withinMs / 1000}))
      limit 1`,
  );
  return rows.length > 0;
}

/** A file name to show: the last path segment, printable, at most 200 characters. */
function displayName(name: string | undefined) {
  const base = path
    .basename((name ?? "").replace(/\\/g, "/"))
    .replace(/\p{Cc}/gu, "")
    .trim();
  return (base || "contacts.csv").slice(0, 200);
}

/** Reads what is left of a refused body (bounded by the reader's limit) so the answer reaches the client whole. */
async function drain(reader: MultipartReader) {
  try {
    while (await reader.next());
  } catch {
    /* malformed or over the limit: the answer is decided already */
  }
}

/**
 * The upload: the form's part named `file` streamed to storage and, on the way, through the CSV
 * reader, so a file that is not CSV (or too large) is refused with nothing kept. Answers the new
 * import with the header's columns, ready for its mapping.
 */
export async function uploadImport(
  actor: ImportActor,
  upload: { body: ReadableStream<Uint8Array> | null; boundary: string | undefined },
): Promise<ImportView> {
  if (!upload.boundary) throw refuseImport(400, m.messaging_import_not_multipart());
  const reader = new MultipartReader(upload.body, upload.boundary, { maxBytes: IMPORT_BODY_MAX_BYTES, maxParts: 8 });
  let stored: { key: string; size: number; columns: string[]; fileName: string } | undefined;
  try {
    for (let part = await reader.next(); part; part = await reader.next()) {
      if (part.name !== IMPORT_FILE_FIELD) continue;
      if (stored) throw refuseImport(400, m.messaging_import_one_file());
      // A form sent with no file chosen has a file part with an empty name.
      if (!part.fileName) throw refuseImport(400, m.messaging_import_choose_file());
      const parser = new CsvParser();
      let header: CsvRecord | undefined;
      let rows = 0;
      const check = (records: CsvRecord[]) => {
        for (const record of records) {
          if (!header) header = record;
          else rows++;
        }
      };
      const chunks = reader.chunks();
      const checked = (async function* () {
        for await (const chunk of chunks) {
          check(parser.push(chunk));
          yield chunk;
        }
        check(parser.end());
      })();
      let file;
      try {
        file = await fileStorage().write(checked, {
          maxBytes: IMPORT_MAX_BYTES,
          organisationId: actor.organizationId,
          contentType: "text/csv",
        });
      } catch (error) {
        if (error instanceof StorageLimitError) throw refuseImport(413, m.messaging_import_too_large({ max: IMPORT_MAX_BYTES / MB }));
        throw error;
      }
      stored = { key: file.key, size: file.size, columns: [], fileName: displayName(part.fileName) };
      stored.columns = headerColumns(header!.fields);
      if (!rows) throw refuseImport(422, m.messaging_import_no_rows());
    }
    if (!stored) throw refuseImport(400, m.messaging_import_choose_file());
  } catch (error) {
    if (stored) await fileStorage().delete(stored.key);
    if (error instanceof MultipartError) {
      if (error.tooLarge) throw refuseImport(413, m.messaging_import_too_large({ max: IMPORT_MAX_BYTES / MB }));
      throw refuseImport(400, m.messaging_import_malformed({ reason: error.message }));
    }
    if (error instanceof CsvError) {
      await drain(reader);
      throw refuseImport(422, error.message);
    }
    if (isRefusal(error, "import")) await drain(reader);
    throw error;
  }
  const rows = await queryRows<ImportRow>(
    db(),
    sql`
      insert into contact_imports (organization_id, created_by, file_name, storage_key, size, columns)
      values (${actor.organizationId}, ${actor.userId ?? null}, ${stored.fileName}, ${stored.key}, ${stored.size}, ${JSON.stringify(stored.columns)}::jsonb)
      returning *`,
  );
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Contact import uploaded",
    details: englishOf(words("app_activity_detail_import_uploaded", { file: stored.fileName, count: stored.columns.length })),
    meta: actor.meta,
  });
  return importView(rows[0]!);
}

/**
 * An import from rows read elsewhere (a Google sheet, issue 45): written to storage as the CSV an
 * upload would have been, so the mapping, the checks and the report are the upload's own. The first
 * row is the header. Answers the new import, ready for startImport.
 */
export async function importFromRows(actor: ImportActor, fileName: string, rows: string[][]): Promise<ImportView> {
  const [header, ...body] = rows;
  if (!header || !body.some((row) => row.some((cell) => cell.trim()))) throw refuseImport(422, m.messaging_import_no_rows());
  let columns: string[];
  try {
    columns = headerColumns(header);
  } catch (error) {
    if (error instanceof CsvError) throw refuseImport(422, error.message);
    throw error;
  }
  const encoder = new TextEncoder();
  const chunks = (function* () {
    for (const row of rows) yield encoder.encode(csvRow(row));
  })();
  let file;
  try {
    file = await fileStorage().write(chunks, { maxBytes: IMPORT_MAX_BYTES, organisationId: actor.organizationId, contentType: "text/csv" });
  } catch (error) {
    if (error instanceof StorageLimitError) throw refuseImport(413, m.messaging_import_too_large({ max: IMPORT_MAX_BYTES / MB }));
    throw error;
  }
  const name = displayName(fileName);
  const inserted = await queryRows<ImportRow>(
    db(),
    sql`
      insert into contact_imports (organization_id, created_by, file_name, storage_key, size, columns)
      values (${actor.organizationId}, ${actor.userId ?? null}, ${name}, ${file.key}, ${file.size}, ${JSON.stringify(columns)}::jsonb)
      returning *`,
  );
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Contact import uploaded",
    details: englishOf(words("app_activity_detail_import_uploaded", { file: name, count: columns.length })),
    meta: actor.meta,
  });
  return importView(inserted[0]!);
}

/** A column's target: a contact field, `attr:<key>` of the tenant's attributes, or "" (ignored). */
export function importTargets(definitions: Map<string, AttributeDefinition>) {
  return [...IMPORT_FIELDS, ...[...definitions.keys()].map((k) => `attr:${k}`)];
}

/** A guess at each column's target from its header, for the mapping form's first showing. */
export function suggestMapping(columns: string[], definitions: Map<string, AttributeDefinition>): Record<string, string> {
  const words: Record<string, string[]> = {
    name: ["name", "full name", "jina", "contact name", "customer"],
    phone: ["phone", "phone number", "mobile", "msisdn", "number", "simu", "whatsapp", "tel", "telephone"],
    tags: ["tags", "tag", "labels", "groups"],
    language: ["language", "lang", "lugha"],
    notes: ["notes", "note", "comments", "maelezo"],
  };
  const mapping: Record<string, string> = {};
  const used = new Set<string>();
  for (const column of columns) {
    const key = column.trim().toLowerCase();
    let target = Object.entries(words).find(([, list]) => list.includes(key))?.[0];
    if (!target) {
      const definition = [...definitions.values()].find((d) => d.key.toLowerCase() === key || d.label.toLowerCase() === key);
      if (definition) target = `attr:${definition.key}`;
    }
    if (target && !used.has(target)) {
      used.add(target);
      mapping[column] = target;
    }
  }
  return mapping;
}

export interface ImportSettings {
  /** Column name → target; columns left out (or mapped to "") are ignored. */
  mapping: Record<string, string>;
  duplicates: DuplicatePolicy;
  /** Where the consent came from; given, every imported contact gets an opted-in event with it. */
  consentEvidence?: string | null;
}

/** Field errors of a mapping, by column ("" for the form as a whole), or null when it is good. */
export function checkMapping(
  columns: string[],
  settings: ImportSettings,
  definitions: Map<string, AttributeDefinition>,
): Record<string, string> | null {
  const errors: Record<string, string> = {};
  const targets = new Set(importTargets(definitions));
  const seen = new Map<string, string>();
  for (const [column, target] of Object.entries(settings.mapping)) {
    if (!columns.includes(column)) {
      errors[""] = m.messaging_import_no_column({ column: column.slice(0, 60) });
      continue;
    }
    if (!target) continue;
    if (!targets.has(target)) errors[column] = m.messaging_import_unknown_target({ target: target.slice(0, 60) });
    else if (seen.has(target)) errors[column] = m.messaging_import_target_twice({ column: seen.get(target)!, target });
    else seen.set(target, column);
  }
  if (![...seen.keys()].includes("phone") && !errors[""]) errors[""] = m.messaging_import_phone_required();
  if (!DUPLICATE_POLICIES.includes(settings.duplicates)) errors["duplicates"] = m.messaging_import_duplicates_required();
  if ((settings.consentEvidence ?? "").length > EVIDENCE_MAX)
    errors["consentEvidence"] = m.messaging_import_evidence_too_long({ max: EVIDENCE_MAX });
  return Object.keys(errors).length ? errors : null;
}

/** Saves the mapping and queues the import's job; an import already started is 409. */
export async function startImport(actor: ImportActor, id: string, settings: ImportSettings): Promise<ImportView> {
  const definitions = await attributeDefinitions(actor.organizationId);
  const started = await db().transaction(async (tx) => {
    const row = await readImportRow(tx, actor.organizationId, id, true);
    if (!row) throw notFound();
    if (row.status !== "uploaded") throw refuseImport(409, m.messaging_import_started_already());
    const errors = checkMapping(row.columns, settings, definitions);
    if (errors) throw refuseImport(422, Object.values(errors)[0]!);
    const mapping = Object.fromEntries(Object.entries(settings.mapping).filter(([, target]) => target));
    const evidence = settings.consentEvidence?.trim() || null;
    const updated = (await queryRow<ImportRow>(
      tx,
      sql`
        update contact_imports set mapping = ${JSON.stringify(mapping)}::jsonb, duplicates = ${settings.duplicates},
          consent_source = ${evidence}, status = 'queued'
        where id = ${row.id} returning *`,
    ))!;
    // The rejected rows' reasons are written in the language of whoever started it.
    await enqueueJob(IMPORT_QUEUE, { importId: row.id, locale: getLocale() }, { executor: tx, uniqueKey: `contact-import:${row.id}` });
    return updated;
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Contact import started",
    details: englishOf(
      words(started.consent_source ? "app_activity_detail_import_started_consent" : "app_activity_detail_import_started", {
        file: started.file_name,
        policy: words(DUPLICATES_WORDS[settings.duplicates]),
      }),
    ),
    meta: actor.meta,
  });
  return importView(started);
}

/** The rejected rows (CSV with a Reason column) of a finished import, as a stream. */
export async function openRejectedRows(organizationId: string, id: string) {
  const row = await readImportRow(db(), organizationId, id);
  if (!row?.rejected_key) throw notFound();
  return { stream: await fileStorage().read(row.rejected_key), fileName: `${path.parse(row.file_name).name.slice(0, 100)}-rejected.csv` };
}

// ---------------------------------------------------------------------------------------------
// The job

interface Candidate {
  line: number;
  cells: string[];
  phone: string;
  name?: string;
  tags?: string[];
  language?: "en" | "sw";
  notes?: string;
  attributes: Record<string, AttributeValue>;
}

interface Rejected {
  line: number;
  cells: string[];
  reason: string;
}

interface Plan {
  mapping: Record<string, string>;
  /** The column index of each target. */
  index: Map<string, number>;
  definitions: Map<string, AttributeDefinition>;
  columns: string[];
}

/** A cell as typed: trimmed, and an apostrophe Jumbe's own exports put before = + - @ taken off again. */
function cellText(value: string | undefined) {
  const text = (value ?? "").trim();
  return /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
}

const LANGUAGES: Record<string, "en" | "sw"> = {
  en: "en",
  english: "en",
  kiingereza: "en",
  sw: "sw",
  swahili: "sw",
  kiswahili: "sw",
};

/** One row checked: a contact to write, or the reason it cannot be. */
function checkRow(plan: Plan, record: CsvRecord): Candidate | Rejected {
  const cells = record.fields;
  const reject = (reason: string): Rejected => ({ line: record.line, cells, reason });
  if (cells.length > plan.columns.length && cells.slice(plan.columns.length).some((c) => c.trim()))
    return reject(m.messaging_import_row_too_many_cells({ cells: cells.length, columns: plan.columns.length }));
  const get = (target: string) => {
    const at = plan.index.get(target);
    return at === undefined ? "" : cellText(cells[at]);
  };
  try {
    const rawPhone = get("phone");
    if (!rawPhone) return reject(m.messaging_import_row_no_phone());
    const candidate: Candidate = { line: record.line, cells, phone: contactPhone(rawPhone), attributes: {} };
    const name = get("name");
    if (name) candidate.name = contactName(name);
    const tags = get("tags");
    if (tags) candidate.tags = contactTags(tags.split(/[,;|]/));
    const language = get("language");
    if (language) {
      const code = LANGUAGES[language.toLowerCase()];
      if (!code) return reject(m.messaging_import_row_language({ language: language.slice(0, 40) }));
      candidate.language = code;
    }
    const notes = get("notes");
    if (notes) {
      if (notes.length > NOTES_MAX) return reject(m.messaging_contact_notes_too_long({ max: NOTES_MAX }));
      candidate.notes = notes;
    }
    for (const [target] of plan.index) {
      if (!target.startsWith("attr:")) continue;
      const definition = plan.definitions.get(target.slice(5));
      if (!definition) return reject(m.messaging_import_row_field_gone({ key: target.slice(5) }));
      const value = attributeValue(definition, get(target));
      if (value !== null) candidate.attributes[definition.key] = value;
    }
    return candidate;
  } catch (error) {
    if (isRefusal(error, "contact")) return reject(error.message);
    throw error;
  }
}

const isRejected = (row: Candidate | Rejected): row is Rejected => "reason" in row;

/** Two rows for one number in the file: the later one's fields folded into the earlier's as the policy says. */
function fold(into: Candidate, later: Candidate, policy: DuplicatePolicy) {
  if (policy === "merge_tags") {
    if (later.tags) into.tags = contactTags([...(into.tags ?? []), ...later.tags]);
    return;
  }
  // update: what the later row gives wins.
  into.name = later.name ?? into.name;
  into.tags = later.tags ?? into.tags;
  into.language = later.language ?? into.language;
  into.notes = later.notes ?? into.notes;
  into.attributes = { ...into.attributes, ...later.attributes };
}

interface BatchOutcome {
  created: number;
  updated: number;
  skipped: number;
  rejected: Rejected[];
}

/**
 * Decides one batch against the book and, unless `dryRun`, writes it in `tx`: new contacts, updates
 * as the policy says, consent events. A dry run (a resumed import replaying the batches already
 * applied, for the rejected rows' file) decides only what is invalid.
 */
// long: one import batch decided and written in the caller's transaction, in the order the policy asks: invalid rows, new contacts, updates, consent events
async function applyBatch(
  tx: Executor,
  job: { organizationId: string; userId: string | null; policy: DuplicatePolicy; evidence: string | null },
  plan: Plan,
  records: CsvRecord[],
  dryRun: boolean,
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { created: 0, updated: 0, skipped: 0, rejected: [] };
  // Rows checked on their own, then one entry per number in the file's order.
  const byPhone = new Map<string, { candidate: Candidate; rows: Candidate[] }>();
  for (const record of records) {
    const row = checkRow(plan, record);
    if (isRejected(row)) outcome.rejected.push(row);
    else {
      const seen = byPhone.get(row.phone);
      if (!seen) byPhone.set(row.phone, { candidate: { ...row }, rows: [row] });
      else {
        seen.rows.push(row);
        if (job.policy !== "skip") fold(seen.candidate, row, job.policy);
      }
    }
  }
  const phones = [...byPhone.keys()];
  if (!phones.length) return outcome;
  const existing = new Map<string, { id: string; tags: string[] }>();
  const found = await queryRows<{ id: string; phone: string; tags: string[] }>(
    tx,
    sql`
      select id, coalesce(phone, '+' || wa_id) as phone, tags from contacts
      where organization_id = ${job.organizationId}
        and (phone = any(${sql.param(phones)}::text[]) or wa_id = any(${sql.param(phones.map((p) => p.slice(1)))}::text[]))`,
  );
  for (const row of found) existing.set(row.phone, { id: row.id, tags: row.tags });
  const fresh = phones.filter((p) => !existing.has(p));
  const erased = new Set<string>();
  if (fresh.length && !job.evidence) {
    const hashes = new Map(fresh.map((p) => [phoneHash(job.organizationId, p), p]));
    const rows = await queryRows<{ phone_hash: string }>(
      tx,
      sql`select phone_hash from contact_tombstones where organization_id = ${job.organizationId} and phone_hash = any(${sql.param([...hashes.keys()])}::text[])`,
    );
    for (const r of rows) erased.add(hashes.get(r.phone_hash)!);
  }
  const inserts: Candidate[] = [];
  const updates: { id: string; candidate: Candidate }[] = [];
  for (const [phone, { candidate, rows }] of byPhone) {
    const book = existing.get(phone);
    if (erased.has(phone)) {
      // Every row of an erased number is refused, with the reason.
      for (const row of rows) outcome.rejected.push({ line: row.line, cells: row.cells, reason: m.messaging_import_row_erased() });
      continue;
    }
    // The first row of a number creates it (or meets the book's contact); the others are duplicates.
    if (!book) {
      inserts.push(candidate);
      outcome.created++;
    } else if (job.policy === "skip") outcome.skipped++;
    else {
      updates.push({ id: book.id, candidate });
      outcome.updated++;
    }
    if (job.policy === "skip") outcome.skipped += rows.length - 1;
    else outcome.updated += rows.length - 1;
  }
  if (dryRun) return outcome;

  const touched: string[] = [];
  if (inserts.length) {
    const col = <T>(f: (c: Candidate) => T) => sql.param(inserts.map(f));
    const inserted = await queryRows<{ id: string }>(
      tx,
      sql`
        insert into contacts (organization_id, name, phone, wa_id, tags, attributes, notes, language)
        select ${job.organizationId}, n, p, substr(p, 2), coalesce(string_to_array(t, chr(31)), '{}'), a::jsonb, no, l
        from unnest(${col((c) => c.name ?? c.phone)}::text[], ${col((c) => c.phone)}::text[], ${col((c) => (c.tags?.length ? c.tags.join("\u001f") : null))}::text[],
                    ${col((c) => JSON.stringify(c.attributes))}::text[], ${col((c) => c.notes ?? null)}::text[], ${col((c) => c.language ?? null)}::text[])
          as v(n, p, t, a, no, l)
        on conflict do nothing
        returning id`,
    );
    // A number added meanwhile by someone else (a message came in): counted as skipped, not created.
    const lost = inserts.length - inserted.length;
    outcome.created -= lost;
    outcome.skipped += lost;
    touched.push(...inserted.map((r) => r.id));
  }
  if (updates.length) {
    const col = <T>(f: (u: { id: string; candidate: Candidate }) => T) => sql.param(updates.map(f));
    const merge = job.policy === "merge_tags";
    await tx.execute(sql`
      update contacts c set
        phone = coalesce(c.phone, v.p),
        name = case when ${merge} then c.name else coalesce(v.n, c.name) end,
        tags = case when v.t is null then c.tags
                    when ${merge} then array(select x from unnest(c.tags || string_to_array(v.t, chr(31))) with ordinality as u(x, o) group by x order by min(o))
                    else string_to_array(v.t, chr(31)) end,
        attributes = case when ${merge} then c.attributes else c.attributes || v.a::jsonb end,
        notes = case when ${merge} then c.notes else coalesce(v.no, c.notes) end,
        language = case when ${merge} then c.language else coalesce(v.l, c.language) end,
        updated_at = now()
      from unnest(${col((u) => u.id)}::uuid[], ${col((u) => u.candidate.phone)}::text[], ${col((u) => u.candidate.name ?? null)}::text[],
                  ${col((u) => (u.candidate.tags?.length ? u.candidate.tags.join("\u001f") : null))}::text[],
                  ${col((u) => JSON.stringify(u.candidate.attributes))}::text[], ${col((u) => u.candidate.notes ?? null)}::text[],
                  ${col((u) => u.candidate.language ?? null)}::text[]) as v(id, p, n, t, a, no, l)
      where c.id = v.id and c.organization_id = ${job.organizationId}`);
    touched.push(...updates.map((u) => u.id));
  }
  if (job.evidence && touched.length)
    await recordConsent(
      tx,
      touched.map((contactId) => ({
        organizationId: job.organizationId,
        contactId,
        status: "opted_in" as const,
        source: "import" as const,
        evidence: job.evidence!,
        recordedBy: job.userId,
      })),
    );
  return outcome;
}

/** Runs the import jobs (one at a time: batchSize 1); outside a transaction, each batch its own. */
export async function runImportJobs(jobs: Job<{ importId: string; locale?: string }>[]) {
  for (const job of jobs) {
    const locale = isLocale(job.payload.locale) ? job.payload.locale : baseLocale;
    try {
      // In the language of whoever started it: the rejected rows' reasons are theirs to read.
      await inLocale(locale, () => runImport(job.payload.importId));
    } catch (error) {
      if (job.attempts >= IMPORT_ATTEMPTS) await failImport(job.payload.importId, words("messaging_import_stopped_error"));
      throw error;
    }
  }
}

/** The import failed for `reason` (stored in English; the page and the log say it in the reader's words). */
async function failImport(id: string, reason: Message) {
  const message = englishOf(reason);
  const rows = await queryRows<{ organization_id: string; created_by: string | null; file_name: string }>(
    db(),
    sql`
      update contact_imports set status = 'failed', error = ${message}, finished_at = now()
      where id = ${id} and status in ('queued', 'running') returning organization_id, created_by, file_name`,
  );
  if (rows[0])
    await recordActivity({
      organizationId: rows[0].organization_id,
      userId: rows[0].created_by,
      type: "settings",
      status: "error",
      action: "Contact import failed",
      details: englishOf(words("app_activity_detail_import_failed", { file: rows[0].file_name, error: reason })),
    });
}

/** Test hook: called after each batch is committed (a test stops the run there, as a crash would). */
let afterBatch: ((batch: number) => void | Promise<void>) | undefined;
export function setAfterImportBatch(hook: typeof afterBatch) {
  afterBatch = hook;
}

/**
 * Streams the file from storage and applies it batch by batch. Each batch's transaction moves the
 * counts and `bytes_read` together, guarded by the position it started from, so a run that crashed
 * (or a second worker) resumes after the last committed batch and counts nothing twice. The
 * rejected rows go to storage as CSV in the same pass; batches already applied when a run resumes
 * are read again to rebuild that file, without writing.
 */
// long: the import's resumable loop: file position, counts and the rejected rows' file move together batch by batch, guarded by the position it started from
export async function runImport(id: string) {
  const start = await readImportRow(db(), null, id);
  if (!start || start.status === "done" || start.status === "failed" || start.status === "uploaded") return;
  await db().execute(sql`update contact_imports set status = 'running', started_at = coalesce(started_at, now()) where id = ${id}`);
  const definitions = await attributeDefinitions(start.organization_id);
  const mapping = start.mapping ?? {};
  const plan: Plan = {
    mapping,
    index: new Map(Object.entries(mapping).map(([column, target]) => [target, start.columns.indexOf(column)])),
    definitions,
    columns: start.columns,
  };
  const job = {
    organizationId: start.organization_id,
    userId: start.created_by,
    policy: start.duplicates ?? "skip",
    evidence: start.consent_source,
  };
  let position = Number(start.bytes_read);
  const counts = { created: start.created, updated: start.updated, skipped: start.skipped, invalid: start.invalid };
  let batches = 0;

  async function* rejectedCsv() {
    yield Buffer.from(`\uFEFF${csvRow(["Line", ...start!.columns, "Reason"])}`);
    const file = await fileStorage().read(start!.storage_key);
    let header = true;
    let batch: CsvRecord[] = [];
    const flush = async () => {
      const records = batch;
      batch = [];
      if (!records.length) return "";
      const end = records.at(-1)!.end;
      let outcome: BatchOutcome;
      if (end <= position) outcome = await applyBatch(db(), job, plan, records, true);
      else {
        const from = position;
        outcome = await db().transaction(async (tx) => {
          const result = await applyBatch(tx, job, plan, records, false);
          const moved = await queryRows<unknown>(
            tx,
            sql`
              update contact_imports set created = created + ${result.created}, updated = updated + ${result.updated},
                skipped = skipped + ${result.skipped}, invalid = invalid + ${result.rejected.length}, bytes_read = ${end}
              where id = ${id} and bytes_read = ${from} and status = 'running' returning id`,
          );
          if (!moved.length) throw new ImportMoved();
          return result;
        });
        position = end;
        counts.created += outcome.created;
        counts.updated += outcome.updated;
        counts.skipped += outcome.skipped;
        counts.invalid += outcome.rejected.length;
        await afterBatch?.(++batches);
      }
      return outcome.rejected
        .sort((a, b) => a.line - b.line)
        .map((r) => csvRow([r.line, ...plan.columns.map((_, i) => r.cells[i] ?? ""), r.reason]))
        .join("");
    };
    for await (const record of csvRecords(file)) {
      if (header) {
        header = false;
        continue;
      }
      // Batches fall on the same rows on every run, so a replayed batch is one that was applied whole.
      batch.push(record);
      if (batch.length >= IMPORT_BATCH_ROWS) {
        const text = await flush();
        if (text) yield Buffer.from(text);
      }
    }
    const text = await flush();
    if (text) yield Buffer.from(text);
  }

  let rejected;
  try {
    rejected = await fileStorage().write(rejectedCsv(), {
      maxBytes: 4 * IMPORT_MAX_BYTES,
      organisationId: start!.organization_id,
      contentType: "text/csv",
    });
  } catch (error) {
    if (error instanceof ImportMoved) {
      log().warn({ importId: id }, "contact import moved on by another run; this run stops");
      return;
    }
    throw error;
  }
  const finished = await queryRow<{ created: number; updated: number; skipped: number; invalid: number }>(
    db(),
    sql`
      update contact_imports set status = 'done', finished_at = now(), bytes_read = size,
        rejected_key = ${counts.invalid ? rejected.key : null}
      where id = ${id} and status = 'running' returning created, updated, skipped, invalid`,
  );
  if (!finished || !counts.invalid) await fileStorage().delete(rejected.key);
  if (!finished) return;
  await recordActivity({
    organizationId: job.organizationId,
    userId: job.userId,
    type: "settings",
    status: finished.invalid ? "warning" : "success",
    action: "Contact import finished",
    details: englishOf(
      words("app_activity_detail_import_finished", {
        file: start.file_name,
        created: finished.created,
        updated: finished.updated,
        skipped: finished.skipped,
        invalid: finished.invalid,
      }),
    ),
  });
}

class ImportMoved extends Error {
  constructor() {
    super("The import moved on in another run.");
  }
}
