import { AsyncLocalStorage } from "node:async_hooks";
import type { ActivityFilter } from "./filters";
import { nairobiDate } from "./filters";
import { activityChunks, type ActivityRecord, type ActivityScope } from "./log-queries";
import { csvRow } from "./csv";
import { log } from "../../infrastructure/log";
import { m } from "~/paraglide/messages";
import { englishOf, words } from "../../infrastructure/words/said";

/** The columns' names, in the request's language (the rows' own words stay as they were stored). */
const header = () => [
  m.app_activity_csv_id(),
  m.app_activity_csv_timestamp(),
  m.app_activity_type(),
  m.app_activity_status(),
  m.app_activity_csv_action(),
  m.app_activity_csv_details(),
  m.app_activity_csv_ip(),
  m.app_activity_csv_user_agent(),
];

/** activity_logs_{date}.csv, with the date of the export in Nairobi. */
export function exportFileName(now = new Date()) {
  return `activity_logs_${nairobiDate(now)}.csv`;
}

/**
 * The matching records as a CSV stream: chunks are read by keyset as the client takes them, so a
 * million rows go out with the memory of one chunk. A UTF-8 byte order mark lets spreadsheet
 * programs read Swahili accents and emoji correctly.
 */
export async function openActivityCsv(scope: ActivityScope, filter: ActivityFilter) {
  const encoder = new TextEncoder();
  // Read now, in the request: the stream's pulls may run after it.
  const heading = csvRow(header());
  const chunks = activityChunks(scope, filter);
  // The first chunk is read before answering: a failure there can still become an error page.
  let pending: IteratorResult<ActivityRecord[], void> | null = await chunks.next();
  // The rest are read as the client takes them, after the route answered: in the request's own
  // context still, so they may read the replica and see the person's own writes (decision 163).
  const inRequest = AsyncLocalStorage.snapshot();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`\uFEFF${heading}`));
        return;
      }
      try {
        const next = pending ?? (await inRequest(() => chunks.next()));
        pending = null;
        if (next.done) return controller.close();
        controller.enqueue(
          encoder.encode(
            next.value.map((r) => csvRow([r.id, r.timestamp, r.type, r.status, r.action, r.details, r.ipAddress, r.userAgent])).join(""),
          ),
        );
      } catch (error) {
        log().error({ err: error }, "activity export failed mid-stream");
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

/** The export's activity line: its range (ISO moments) and filters (their codes), in English read back for each reader. */
export function exportRangeDetails(filter: Pick<ActivityFilter, "start" | "end" | "type" | "status">): string {
  const range = { start: filter.start.toISOString(), end: filter.end.toISOString() };
  if (filter.type && filter.status)
    return englishOf(words("app_activity_detail_export_range_type_status", { ...range, type: filter.type, status: filter.status }));
  if (filter.type) return englishOf(words("app_activity_detail_export_range_type", { ...range, type: filter.type }));
  if (filter.status) return englishOf(words("app_activity_detail_export_range_status", { ...range, status: filter.status }));
  return englishOf(words("app_activity_detail_export_range", range));
}
