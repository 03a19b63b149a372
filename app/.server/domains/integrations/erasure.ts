import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { englishOf, words, type Said } from "../../infrastructure/words/said";
import { recordActivity } from "../activity";
import type { ErasedCopy } from "../contacts";
import { hubspotCall, hubspotConnection } from "./hubspot/calls";
import { GoogleError } from "../../infrastructure/clients/google-sheets";
import { GOOGLE_SHEETS_ID, withSheetsToken } from "./google-sheets/google-call";
import { HEADERS, SHEET_TABS } from "./google-sheets/export";

/**
 * A person's erasure reaching the connected tools (issue 74, decision 115): what Jumbe put there is
 * removed by a queued job (retried, idempotent, logged), or listed for the business where the tool
 * cannot take it out.
 */
export const ERASE_COPIES_QUEUE = "integrations.erase-copies";

/** What the job removes, captured in the erasure's transaction (the links go with the contact). */
export interface EraseCopiesJob {
  organizationId: string;
  /** The erased contact's Jumbe id: column A of its row in an exported sheet. */
  contactId: string;
  hubspot: { hubId: string; contactId: string; communicationIds: string[] }[];
  /** The person's messages: column A of their rows in an exported sheet's Messages tab. */
  messageIds: string[];
  /** Spreadsheets the export wrote to (their ids and titles). */
  spreadsheets: { id: string; title: string }[];
}

/** Messages kept in one job's payload; a longer history is found by the rows' ids in Jumbe (blanked, not deleted). */
const MESSAGE_IDS_MAX = 20_000;
const ARCHIVE_BATCH = 100;

/** The HubSpot links, logged messages and exported sheets of a contact, in the erasure's transaction. */
async function copiesOf(
  tx: Executor,
  organizationId: string,
  contactId: string,
): Promise<Omit<EraseCopiesJob, "organizationId" | "contactId">> {
  const links = await queryRows<{ hub_id: string; hubspot_id: string }>(
    tx,
    sql`select hub_id, hubspot_id from hubspot_contact_links where organization_id = ${organizationId} and contact_id = ${contactId}`,
  );
  const logged = await queryRows<{ hub_id: string; communication_id: string }>(
    tx,
    sql`select l.hub_id, l.communication_id from hubspot_logged_messages l join messages m on m.id = l.message_id
        where l.organization_id = ${organizationId} and m.organization_id = ${organizationId} and m.contact_id = ${contactId}`,
  );
  const hubspot = links.map((link) => ({
    hubId: link.hub_id,
    contactId: link.hubspot_id,
    communicationIds: logged.filter((l) => l.hub_id === link.hub_id).map((l) => l.communication_id),
  }));
  const spreadsheets = await queryRows<{ id: string; title: string | null }>(
    tx,
    sql`select distinct b.spreadsheet_id as id, case when b.spreadsheet_id = e.spreadsheet_id then e.spreadsheet_title end as title
        from google_sheets_export_batches b left join google_sheets_exports e on e.organization_id = b.organization_id
        where b.organization_id = ${organizationId} and not b.header`,
  );
  const messageIds = spreadsheets.length
    ? (
        await queryRows<{ id: string }>(
          tx,
          sql`select id from messages where organization_id = ${organizationId} and contact_id = ${contactId}
              order by created_at desc limit ${MESSAGE_IDS_MAX}`,
        )
      ).map((r) => r.id)
    : [];
  return { hubspot, messageIds, spreadsheets: spreadsheets.map((s) => ({ id: s.id, title: s.title ?? s.id })) };
}

/** The connected tools' accounts, by provider, for the words. */
async function accountLabels(executor: Executor, organizationId: string) {
  const rows = await queryRows<{ provider: string; account_label: string | null; external_account_id: string | null; status: string }>(
    executor,
    sql`select provider, account_label, external_account_id, status from integration_connections where organization_id = ${organizationId}`,
  );
  return rows;
}

/**
 * The copies an erasure will reach, as the confirmation lists them before the person presses Erase:
 * read only, the same rule as the erasure's own capture.
 */
export async function copiesToErase(organizationId: string, contactId: string): Promise<ErasedCopy[]> {
  return db().transaction(async (tx) => describe(tx, organizationId, await copiesOf(tx, organizationId, contactId)));
}

async function describe(tx: Executor, organizationId: string, copies: Omit<EraseCopiesJob, "organizationId" | "contactId">) {
  const accounts = await accountLabels(tx, organizationId);
  const out: ErasedCopy[] = [];
  for (const link of copies.hubspot) {
    const account = accounts.find((a) => a.provider === "hubspot" && a.external_account_id === link.hubId);
    out.push({
      tool: "HubSpot",
      where: account?.account_label ?? `Hub ID ${link.hubId}`,
      outcome: account?.status === "connected" ? "removing" : "by_hand",
    });
  }
  const google = accounts.find((a) => a.provider === GOOGLE_SHEETS_ID);
  for (const sheet of copies.spreadsheets)
    out.push({ tool: "Google Sheets", where: sheet.title, outcome: google?.status === "connected" ? "removing" : "by_hand" });
  return out;
}

/**
 * The erasure's reaction (registered by composition/domain-events.ts): in its transaction, the copies
 * are captured, the job queued, and what will happen answered for the confirmation.
 */
export async function queueCopiesErasure(tx: Executor, erased: { organizationId: string; contactId: string }): Promise<ErasedCopy[]> {
  const copies = await copiesOf(tx, erased.organizationId, erased.contactId);
  if (!copies.hubspot.length && !copies.spreadsheets.length) return [];
  await enqueueJob(ERASE_COPIES_QUEUE, { ...erased, ...copies } satisfies EraseCopiesJob, { executor: tx });
  return describe(tx, erased.organizationId, copies);
}

async function logged(organizationId: string, status: "success" | "warning", said: Said) {
  await recordActivity({ organizationId, type: "security", status, action: "Erasure sent to connected tools", details: englishOf(said) });
}

/** HubSpot: the logged messages archived, then the contact deleted for good. Answers false when the portal is no longer connected. */
async function eraseInHubspot(job: EraseCopiesJob, link: EraseCopiesJob["hubspot"][number]) {
  const connection = await hubspotConnection(job.organizationId);
  if (!connection || connection.hubId !== link.hubId) return false;
  for (let i = 0; i < link.communicationIds.length; i += ARCHIVE_BATCH) {
    const ids = link.communicationIds.slice(i, i + ARCHIVE_BATCH);
    await hubspotCall(connection, (client, token) => client.archiveCommunications(token, ids));
  }
  await hubspotCall(connection, (client, token) => client.gdprDeleteContact(token, link.contactId));
  await db().execute(sql`delete from hubspot_logged_messages where organization_id = ${job.organizationId}
      and communication_id = any(${sql.param(link.communicationIds)}::text[])`);
  return true;
}

/** Rows whose column A is one of `keys`, as sheet row numbers (1-based). */
const rowsWith = (column: string[][], keys: Set<string>) =>
  column.flatMap((row, i) => (row[0] !== undefined && keys.has(row[0]) ? [i + 1] : []));

/** Column letters of the tab's personal columns (kept: column A, Jumbe's id, and what says nothing of the person). */
const PERSONAL: Record<keyof typeof SHEET_TABS, string[]> = {
  contacts: ["Name", "Phone", "Tags", "Language", "Consent"],
  messages: ["Phone", "Contact", "Body"],
};
const letter = (index: number) => String.fromCharCode(65 + index);

/**
 * Google Sheets: in each spreadsheet the export wrote to, the person's rows keep column A (Jumbe's id,
 * which the export's resume check reads) and lose every personal cell, as Jumbe keeps its own
 * message rows. Two reads and one write per tab: the ids, then the rows between the first and last
 * match rewritten with those cells blank. Answers the rows blanked.
 */
async function eraseInSheets(job: EraseCopiesJob, spreadsheetId: string) {
  let blanked = 0;
  for (const stream of ["contacts", "messages"] as const) {
    const keys = new Set(stream === "contacts" ? [job.contactId] : job.messageIds);
    if (!keys.size) continue;
    const tab = SHEET_TABS[stream];
    const ids = await withSheetsToken(job.organizationId, (token, client) => client.getValues(token, spreadsheetId, `${tab}!A:A`));
    const rows = rowsWith(ids.values, keys);
    if (!rows.length) continue;
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const width = HEADERS[stream].length;
    const range = `${tab}!A${first}:${letter(width - 1)}${last}`;
    const current = await withSheetsToken(job.organizationId, (token, client) => client.getValues(token, spreadsheetId, range));
    const personal = new Set(PERSONAL[stream].map((name) => HEADERS[stream].indexOf(name)));
    const wanted = new Set(rows);
    const next = Array.from({ length: last - first + 1 }, (_, i) => {
      const row = current.values[i] ?? [];
      const cells = Array.from({ length: width }, (_, c) => row[c] ?? "");
      return wanted.has(first + i) ? cells.map((cell, c) => (personal.has(c) ? "" : cell)) : cells;
    });
    await withSheetsToken(job.organizationId, (token, client) => client.updateValues(token, spreadsheetId, range, next));
    blanked += rows.length;
  }
  return blanked;
}

/**
 * The job: each tool in turn, each step safe to repeat (a contact or a communication already gone is
 * done; blank cells blanked again stay blank), so a retry after a failure does it all again. A tool
 * no longer connected is listed for the business in the log. Outside a transaction: it calls out.
 */
export async function runEraseCopiesJob(job: Job<EraseCopiesJob>) {
  const erase = job.payload;
  for (const link of erase.hubspot) {
    const done = await eraseInHubspot(erase, link);
    await logged(
      erase.organizationId,
      done ? "success" : "warning",
      done
        ? words("app_activity_detail_erasure_hubspot_done", { id: link.contactId, hub: link.hubId, messages: link.communicationIds.length })
        : words("app_activity_detail_erasure_hubspot_by_hand", { id: link.contactId, hub: link.hubId }),
    );
  }
  const sheets = erase.spreadsheets.length
    ? (await accountLabels(db(), erase.organizationId)).find((a) => a.provider === GOOGLE_SHEETS_ID && a.status === "connected")
    : undefined;
  for (const sheet of erase.spreadsheets) {
    if (!sheets) {
      await logged(erase.organizationId, "warning", words("app_activity_detail_erasure_sheets_by_hand", { spreadsheet: sheet.title }));
      continue;
    }
    // A spreadsheet Google no longer lets Jumbe open (deleted, or not one drive.file reaches): the business's to clean.
    const rows = await eraseInSheets(erase, sheet.id).catch((error: unknown) => {
      if (error instanceof GoogleError && (error.kind === "not_found" || error.kind === "forbidden")) return null;
      throw error;
    });
    await logged(
      erase.organizationId,
      rows === null ? "warning" : "success",
      rows === null
        ? words("app_activity_detail_erasure_sheets_by_hand", { spreadsheet: sheet.title })
        : words("app_activity_detail_erasure_sheets_done", { spreadsheet: sheet.title, rows }),
    );
  }
}
