/**
 * Jumbe's time zones and its formatters. Organisations are in Kenya by default: every "today" and
 * "this month" is Nairobi's, and every date a page shows is in the signed-in organisation's time zone
 * (Account Settings, Organisation; Africa/Nairobi unless changed). Intl formatters are costly to build
 * (a dashboard spent 7-10% of its time building them per call), so each is built once per zone and reused.
 */
export const TIME_ZONE = "Africa/Nairobi";
export const LOCALE = "en-KE";

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
  let found = formatters.get(zone);
  if (!found) {
    found = {
      dateTime: new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeStyle: "short", timeZone: zone }),
      dateOnly: new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeZone: zone }),
      timeOnly: new Intl.DateTimeFormat(LOCALE, { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: zone }),
      dayKey: new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: zone }),
    };
    formatters.set(zone, found);
  }
  return found;
}
const numbers = new Intl.NumberFormat(LOCALE);

type Instant = string | number | Date;
const toDate = (at: Instant) => (at instanceof Date ? at : new Date(at));

/** "22 Nov 2026, 14:05": a moment, in the display zone (Nairobi unless the organisation chose another). */
export function formatWhen(at: Instant, zone = displayZone()) {
  return formattersFor(zone).dateTime.format(toDate(at));
}

/** "22 Nov 2026": a day, in the display zone. */
export function formatDay(at: Instant, zone = displayZone()) {
  return formattersFor(zone).dateOnly.format(toDate(at));
}

/** "12,345": a count, grouped the Kenyan way. */
/** The time of day, 24-hour (a chat bubble's "14:05"). */
export function formatTime(at: Instant, zone = displayZone()) {
  return formattersFor(zone).timeOnly.format(toDate(at));
}

/** The calendar day in the zone as YYYY-MM-DD: equal for two instants of the same local day. */
export function dayKey(at: Instant, zone = displayZone()) {
  return formattersFor(zone).dayKey.format(toDate(at));
}

export function formatNumber(n: number) {
  return numbers.format(n);
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
  return `${zone.replace(/^.*\//, "").replaceAll("_", " ").replace("Asmera", "Asmara")} time`;
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
