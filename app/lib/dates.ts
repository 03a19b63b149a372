import { formatDateWords, intlLocale } from "./intl";
import { m } from "~/paraglide/messages";

/**
 * Jumbe's time zones and its formatters. Organisations are in Kenya by default: every "today" and
 * "this month" is Nairobi's, and every date a page shows is in the signed-in organisation's time zone
 * (Account Settings, Organisation; Africa/Nairobi unless changed). Intl formatters are costly to build
 * (a dashboard spent 7-10% of its time building them per call), so each is built once per zone and
 * language and reused. Dates and numbers are written the way the page's language writes them (issue 43).
 */
export const TIME_ZONE = "Africa/Nairobi";

// Where a page's display zone comes from: on the server, the request's (app/.server/infrastructure/http/display-zone.ts);
// in the browser, the signed-in organisation's (set by the shell). Elsewhere (jobs, e-mails): Nairobi.
let zoneSource: () => string | undefined = () => undefined;

export function setDisplayZoneSource(source: () => string | undefined) {
  zoneSource = source;
}

/** The time zone dates are shown in right now. */
export function displayZone() {
  return zoneSource() ?? TIME_ZONE;
}

// Africa/Nairobi has been UTC+3 all year since 1960: no daylight saving to follow.
export const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;

const formatters = new Map<
  string,
  { dateTime: Intl.DateTimeFormat; dateOnly: Intl.DateTimeFormat; timeOnly: Intl.DateTimeFormat; dayKey: Intl.DateTimeFormat }
>();

function formattersFor(zone: string) {
  const locale = intlLocale();
  const key = `${locale} ${zone}`;
  let found = formatters.get(key);
  if (!found) {
    found = {
      dateTime: new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: zone }),
      dateOnly: new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: zone }),
      timeOnly: new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: zone }),
      dayKey: new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: zone }),
    };
    formatters.set(key, found);
  }
  return found;
}
const numberFormats = new Map<string, Intl.NumberFormat>();

type Instant = string | number | Date;
const toDate = (at: Instant) => (at instanceof Date ? at : new Date(at));

/** "22 Nov 2026, 14:05": a moment, in the display zone (Nairobi unless the organisation chose another). */
export function formatWhen(at: Instant, zone = displayZone()) {
  return formatDateWords(formattersFor(zone).dateTime, toDate(at));
}

/** "22 Nov 2026": a day, in the display zone. */
export function formatDay(at: Instant, zone = displayZone()) {
  return formatDateWords(formattersFor(zone).dateOnly, toDate(at));
}

/** The time of day, 24-hour (a chat bubble's "14:05"). */
export function formatTime(at: Instant, zone = displayZone()) {
  return formattersFor(zone).timeOnly.format(toDate(at));
}

/** The calendar day in the zone as YYYY-MM-DD: equal for two instants of the same local day. */
export function dayKey(at: Instant, zone = displayZone()) {
  return formattersFor(zone).dayKey.format(toDate(at));
}

/** "12,345" in English and Swahili, "12 345" in French: a count, grouped as the page's language groups it. */
export function formatNumber(n: number) {
  const locale = intlLocale();
  let format = numberFormats.get(locale);
  if (!format) numberFormats.set(locale, (format = new Intl.NumberFormat(locale)));
  return format.format(n);
}

/** The Nairobi calendar date of an instant, as YYYY-MM-DD. */
export function nairobiDate(at: Date) {
  return new Date(at.getTime() + NAIROBI_OFFSET_MS).toISOString().slice(0, 10);
}

/** 00:00 in Nairobi on a YYYY-MM-DD date. */
export function nairobiMidnight(ymd: string) {
  return new Date(Date.parse(`${ymd}T00:00:00.000+03:00`));
}

/** "Nairobi time", "Lagos time", "UTC": the display zone in words, for hints beside a time. */
export function zoneWords(zone = displayZone()) {
  if (zone === "UTC" || zone === "Etc/UTC") return "UTC";
  return m.common_zone_time({ city: zone.replace(/^.*\//, "").replaceAll("_", " ").replace("Asmera", "Asmara") });
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** How far a zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(ms: number, zone: string) {
  let clock = wallClocks.get(zone);
  if (!clock) {
    clock = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    wallClocks.set(zone, clock);
  }
  const part = Object.fromEntries(clock.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** 2026-11-30 and 09:30 on the wall clocks of `zone` (the display zone) as an instant; undefined when either is missing or invalid. */
export function zonedInstant(date: string, time: string, zone = displayZone()): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}$/.test(time)) return undefined;
  const wall = Date.parse(`${date}T${time}:00.000Z`);
  if (Number.isNaN(wall)) return undefined;
  // Twice: the second look uses the offset at the instant itself (a daylight-saving change in between).
  const first = wall - offsetAt(wall, zone);
  return new Date(wall - offsetAt(first, zone));
}
