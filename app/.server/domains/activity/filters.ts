/** The Activity page's and API's filters (spec sections 2, 7 and 9), read from a URL's query. */
import { ACTIVITY_STATUSES, ACTIVITY_TYPES, DATE_RANGES, DEFAULT_RANGE, type DateRange } from "~/lib/activity";
import { NAIROBI_OFFSET_MS, nairobiDate, nairobiMidnight } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export { ACTIVITY_STATUSES, ACTIVITY_TYPES, DATE_RANGES, DEFAULT_RANGE, type DateRange };

export interface ActivityFilter {
  type?: (typeof ACTIVITY_TYPES)[number];
  status?: (typeof ACTIVITY_STATUSES)[number];
  /** Inclusive. */
  start: Date;
  /** Exclusive. */
  end: Date;
  range: DateRange | "custom";
}

const DAY_MS = 24 * 60 * 60 * 1000;

export { nairobiDate, nairobiMidnight };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function parseBound(value: string, edge: "start" | "end"): Date | null {
  if (DATE_ONLY.test(value)) {
    const midnight = nairobiMidnight(value);
    if (Number.isNaN(midnight.getTime()) || nairobiDate(midnight) !== value) return null;
    // A whole day: endDate=2026-11-21 includes all of the 21st, Nairobi time.
    return edge === "start" ? midnight : new Date(midnight.getTime() + DAY_MS);
  }
  // Full timestamps must say their offset: a bare local time would mean different instants on different servers.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

// Years a log can hold. PostgreSQL has no year 0, and JavaScript writes year 10000 as +010000.
const EARLIEST = Date.UTC(2000, 0, 1) - NAIROBI_OFFSET_MS;
const LATEST = Date.UTC(2101, 0, 1) - NAIROBI_OFFSET_MS;
const inBounds = (at: Date) => at.getTime() >= EARLIEST && at.getTime() <= LATEST;

export type FilterResult = { ok: true; filter: ActivityFilter } | { ok: false; message: string };

/**
 * type and status ('all' or absent: no filter); either startDate/endDate (ISO dates, read as
 * Nairobi days, or ISO timestamps with an offset) or range (24hours, 7days, 30days, 90days; default
 * 7days). A day range starts at Nairobi midnight: 7days is today and the six days before it.
 */
export function parseActivityFilter(query: URLSearchParams, now = new Date()): FilterResult {
  const type = query.get("type") || "all";
  const status = query.get("status") || "all";
  if (type !== "all" && !(ACTIVITY_TYPES as readonly string[]).includes(type))
    return { ok: false, message: m.app_activity_error_type({ type: type.slice(0, 40) }) };
  if (status !== "all" && !(ACTIVITY_STATUSES as readonly string[]).includes(status))
    return { ok: false, message: m.app_activity_error_status({ status: status.slice(0, 40) }) };
  const base = {
    type: type === "all" ? undefined : (type as ActivityFilter["type"]),
    status: status === "all" ? undefined : (status as ActivityFilter["status"]),
  };

  const startDate = query.get("startDate");
  const endDate = query.get("endDate");
  if (startDate || endDate) {
    const start = startDate ? parseBound(startDate, "start") : new Date(0);
    const end = endDate ? parseBound(endDate, "end") : now;
    // The parameters keep their names (startDate, endDate) in every language: they are the API's.
    if (!start) return { ok: false, message: m.app_activity_error_bound({ field: "startDate" }) };
    if (!end) return { ok: false, message: m.app_activity_error_bound({ field: "endDate" }) };
    if (startDate && !inBounds(start)) return { ok: false, message: m.app_activity_error_out_of_bounds({ field: "startDate" }) };
    if (endDate && !inBounds(end)) return { ok: false, message: m.app_activity_error_out_of_bounds({ field: "endDate" }) };
    if (start.getTime() >= end.getTime()) return { ok: false, message: m.app_activity_error_order() };
    return { ok: true, filter: { ...base, start, end, range: "custom" } };
  }

  const range = query.get("range") || DEFAULT_RANGE;
  // Own keys only: "constructor" or "toString" is `in` every object.
  if (!Object.hasOwn(DATE_RANGES, range)) return { ok: false, message: m.app_activity_error_range({ range: range.slice(0, 40) }) };
  const days = DATE_RANGES[range as DateRange];
  const start =
    range === "24hours" ? new Date(now.getTime() - DAY_MS) : new Date(nairobiMidnight(nairobiDate(now)).getTime() - (days - 1) * DAY_MS);
  // The end is a moment after now, so a record written during this request is in range.
  return { ok: true, filter: { ...base, start, end: new Date(now.getTime() + 1000), range: range as DateRange } };
}

/** The filter as query parameters (for Export, paging and the API), defaults left out. */
export function filterQuery(filter: ActivityFilter) {
  const q = new URLSearchParams();
  if (filter.type) q.set("type", filter.type);
  if (filter.status) q.set("status", filter.status);
  if (filter.range === "custom") {
    q.set("startDate", filter.start.toISOString());
    q.set("endDate", filter.end.toISOString());
  } else if (filter.range !== DEFAULT_RANGE) q.set("range", filter.range);
  return q;
}
