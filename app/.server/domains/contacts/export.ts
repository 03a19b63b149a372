import { AsyncLocalStorage } from "node:async_hooks";
import { sql } from "drizzle-orm";
import { readDb } from "../../infrastructure/db/client";
import { ownWritesWindowMs, primaryWritePosition } from "../../infrastructure/db/replica";
import { queryRows } from "../../infrastructure/db/query";
import { csvRow, nairobiDate } from "../activity";
import { log } from "../../infrastructure/log";
import { englishOf, words, type Message, type MessageKey } from "../../infrastructure/words/said";
import { attributeDefinitions, type AttributeDefinition } from "./attributes";
import { contactConditions, type ContactFilter } from "./manage";
import { importsUnderWay } from "./import";
import { readContactFilterParams } from "~/lib/contact-filter";

/** Rows read per query: the export's memory is one chunk, whatever the book's size. */
const CHUNK = 1000;

const OPT_IN = { opted_in: "Opted in", opted_out: "Opted out", unknown: "Not asked" } as const;

interface ExportRow {
  id: string;
  name: string;
  phone: string | null;
  tags: string[];
  attributes: Record<string, string | number | boolean>;
  opt_in: keyof typeof OPT_IN;
  language: string | null;
  notes: string | null;
  last_seen_at: string | null;
  created_at: string;
  cursor_at: string;
}

const OPT_IN_VALUES = ["opted_in", "opted_out", "unknown"] as const;
const SEEN_DAYS = { "7": 7, "30": 30, "90": 90 } as const;
/** An opt-in filter as the activity log names it. */
const OPT_IN_WORDS: Record<(typeof OPT_IN_VALUES)[number], MessageKey> = {
  opted_in: "app_activity_detail_export_opted_in",
  opted_out: "app_activity_detail_export_opted_out",
  unknown: "app_activity_detail_export_opt_in_unknown",
};

/**
 * The Contacts tab's filter as its URL carries it (q, tag, optin, seen: 7, 30, 90 or never), for
 * the export link; values it does not know are dropped, as the tab drops them. Answers the filter
 * and a description for the activity log.
 */
export function exportFilter(params: URLSearchParams, now = new Date()): { filter: ContactFilter; description: string } {
  const q = params.get("q")?.trim().slice(0, 200) || undefined;
  const tag = params.get("tag")?.trim().toLowerCase().slice(0, 40) || undefined;
  const optin = params.get("optin");
  const optIn = OPT_IN_VALUES.find((v) => v === optin);
  const seen = params.get("seen") ?? "";
  const { ad } = readContactFilterParams(params);
  const days = Object.hasOwn(SEEN_DAYS, seen) ? SEEN_DAYS[seen as keyof typeof SEEN_DAYS] : 0;
  const filter: ContactFilter = {
    search: q,
    tag,
    optIn,
    seenSince: days ? new Date(now.getTime() - days * 24 * 60 * 60 * 1000) : undefined,
    neverSeen: seen === "never" || undefined,
    ad,
  };
  // In English, each part a message (activity/stored-details.ts reads the list back for the log's readers).
  const parts = [
    q ? words("app_activity_detail_export_search", { q }) : undefined,
    tag ? words("app_activity_detail_export_tag", { tag }) : undefined,
    optIn ? words("app_activity_detail_export_opt_in", { state: words(OPT_IN_WORDS[optIn]) }) : undefined,
    days ? words("app_activity_detail_export_seen_days", { days }) : undefined,
    seen === "never" ? words("app_activity_detail_export_never_seen") : undefined,
    ad === "any" ? words("app_activity_detail_export_any_ad") : ad ? words("app_activity_detail_export_ad", { ad }) : undefined,
  ].filter((part): part is Message => part !== undefined);
  return { filter, description: englishOf(parts.length ? { list: parts } : words("app_activity_detail_export_all")) };
}

/** contacts_{date}.csv, with the date of the export in Nairobi. */
export function contactsExportFileName(now = new Date()) {
  return `contacts_${nairobiDate(now)}.csv`;
}

/** The header: the fields, then one column per custom field (its label), as the import's mapping recognises them. */
function header(definitions: AttributeDefinition[]) {
  return ["Name", "Phone", "Tags", "Opt-in", "Language", "Notes", "Last seen", "Created", ...definitions.map((d) => d.label)];
}

/**
 * The primary position the export must see besides the person's own write mark (decision 171): an
 * import writes its rows in a job, after the request that started it, so they carry no mark. While
 * one of the tenant's imports is under way, or for the mark's lifetime after it ended, the export
 * reads the replica only once it has replayed the primary's present position. Null without a replica.
 */
async function importedRowsPosition(organizationId: string) {
  const window = ownWritesWindowMs();
  if (window === null || !(await importsUnderWay(organizationId, window))) return null;
  // Read after the import's row: every batch committed before it is before this position.
  return primaryWritePosition();
}

async function* contactChunks(organizationId: string, filter: ContactFilter, seen: bigint | null) {
  let after: { at: string; id: string } | undefined;
  for (;;) {
    const rows = await queryRows<ExportRow>(
      // Each chunk asks again: a replica that went down or fell behind mid-export hands over to the primary.
      await readDb({ after: seen }),
      sql`
        select c.id, c.name, c.phone, c.tags, c.attributes, c.opt_in, c.language, c.notes,
               c.last_seen_at, c.created_at, c.created_at::text as cursor_at
        from contacts c
        where ${contactConditions(organizationId, filter)}
          ${after ? sql`and (c.created_at, c.id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
        -- The (organization_id, created_at desc nulls last, id desc nulls last) index read backwards: no sort of the tenant.
        order by c.created_at asc nulls first, c.id asc nulls first
        limit ${CHUNK}`,
    );
    if (rows.length) yield rows;
    if (rows.length < CHUNK) return;
    const last = rows.at(-1)!;
    after = { at: last.cursor_at, id: last.id };
  }
}

const iso = (value: string | Date | null) => (value === null ? "" : new Date(value).toISOString());

/**
 * The contacts a filter matches as a CSV stream, oldest first, read by keyset as the client takes
 * them. Formula-safe cells (csvCell) and a UTF-8 byte order mark for spreadsheets; tags joined by
 * commas in one cell, each custom field in its own column.
 */
export async function openContactsCsv(organizationId: string, filter: ContactFilter) {
  const encoder = new TextEncoder();
  const definitions = [...(await attributeDefinitions(organizationId)).values()];
  const chunks = contactChunks(organizationId, filter, await importedRowsPosition(organizationId));
  // The first chunk is read before answering: a failure there can still become an error page.
  let pending: IteratorResult<ExportRow[], void> | null = await chunks.next();
  // The rest are read as the client takes them, after the route answered: in the request's own
  // context still, so they may read the replica and see the person's own writes (decision 163).
  const inRequest = AsyncLocalStorage.snapshot();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`\uFEFF${csvRow(header(definitions))}`));
        return;
      }
      try {
        const next = pending ?? (await inRequest(() => chunks.next()));
        pending = null;
        if (next.done) return controller.close();
        controller.enqueue(
          encoder.encode(
            next.value
              .map((c) =>
                csvRow([
                  c.name,
                  c.phone,
                  c.tags.join(", "),
                  OPT_IN[c.opt_in],
                  c.language,
                  c.notes,
                  iso(c.last_seen_at),
                  iso(c.created_at),
                  ...definitions.map((d) => {
                    const value = c.attributes[d.key];
                    return value === undefined ? "" : String(value);
                  }),
                ]),
              )
              .join(""),
          ),
        );
      } catch (error) {
        log().error({ err: error }, "contacts export failed mid-stream");
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
