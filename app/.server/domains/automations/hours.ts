/**
 * Business hours: is the organisation open at an instant, and when does it open next? The away
 * message answers outside them ("we'll be back at ...").
 *
 * Pure: the instant is given, and time zones come from `Intl.DateTimeFormat` (the runtime's own
 * IANA database), so any zone works, with or without daylight saving time, although Kenya has none.
 *
 * The rules:
 * - Each weekday (0 = Sunday ... 6 = Saturday, local time) has up to MAX_RANGES_PER_DAY ranges,
 *   `from` included, `to` excluded, to the minute. `to` may be "24:00" (the end of the day).
 * - A range whose `to` is not after its `from` runs past midnight: Friday 20:00–02:00 is open until
 *   Saturday 02:00, and belongs to Friday; "09:00"–"09:00" is 24 hours from 09:00.
 * - A holiday (a local date) is closed all day, including the hours after midnight of an overnight
 *   range that started the evening before (the business said it is closed that day). An overnight
 *   range does not run at all when the day it starts on is a holiday: its morning hours after
 *   midnight are closed too, as the range was never opened.
 * - Holiday mode closes everything until it is turned off; there is then no next opening to announce.
 * - Local times that do not exist (the hour skipped when clocks go forward) are never open; a range
 *   whose start falls in that hour opens when the clocks have moved on, if it has not ended by then.
 *   Times that happen twice (clocks going back) are open both times.
 */

export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export const WEEKDAYS: readonly Weekday[] = [0, 1, 2, 3, 4, 5, 6];

export interface OpeningRange {
  /** "HH:MM", 00:00 to 23:59. */
  from: string;
  /** "HH:MM", 00:00 to 24:00; not after `from` means the next day. */
  to: string;
}

export interface Schedule {
  /** An IANA time zone, such as "Africa/Nairobi". */
  timeZone: string;
  days: Record<Weekday, readonly OpeningRange[]>;
  /** Local dates, "YYYY-MM-DD". */
  holidays: readonly string[];
  holidayMode: boolean;
}

export const MAX_RANGES_PER_DAY = 4;
export const MAX_HOLIDAYS = 100;
/** How far ahead `nextOpening` looks. */
export const NEXT_OPENING_DAYS = 14;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const MINUTES_PER_DAY = 24 * 60;

// ---------------------------------------------------------------------------------------------
// Calendar and clock

/** A local calendar day as a number: days since 1970-01-01, so the day before is one less. */
type DayNumber = number;

const weekdayOf = (day: DayNumber) => ((((day + 4) % 7) + 7) % 7) as Weekday; // 1970-01-01 was a Thursday
const dateOf = (day: DayNumber) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Minutes since midnight of "H:MM" or "HH:MM" (24:00 included); NaN for anything else. */
function minutesOf(time: string): number {
  const parts = /^(\d{1,2}):(\d{2})$/.exec(time);
  if (!parts) return NaN;
  const hours = Number(parts[1]);
  const minutes = Number(parts[2]);
  if (minutes > 59 || hours > 24 || (hours === 24 && minutes > 0)) return NaN;
  return hours * 60 + minutes;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      numberingSystem: "latn",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock in a zone at an instant, read as if it were UTC: the instant plus the zone's offset. */
function wallClockMs(timeZone: string, at: number): number {
  const fields: Record<string, number> = {};
  for (const { type, value } of formatterFor(timeZone).formatToParts(at)) if (type !== "literal") fields[type] = Number(value);
  // Some engines write midnight as 24 even in h23.
  const hour = fields.hour === 24 ? 0 : fields.hour!;
  return Date.UTC(fields.year!, fields.month! - 1, fields.day!, hour, fields.minute!, fields.second!) + (at - Math.floor(at / 1000) * 1000);
}

const offsetAt = (timeZone: string, at: number) => wallClockMs(timeZone, at) - at;

interface LocalMoment {
  day: DayNumber;
  minute: number;
}

function localMoment(timeZone: string, at: number): LocalMoment {
  const wall = wallClockMs(timeZone, at);
  const day = Math.floor(wall / DAY_MS);
  return { day, minute: Math.floor((wall - day * DAY_MS) / MINUTE_MS) };
}

/**
 * The instants whose wall clock reads this day and minute: one usually, two when the clocks go back,
 * none in the hour skipped when they go forward. A zone changes its offset at most once in two days.
 */
function instantsAtWallTime(timeZone: string, day: DayNumber, minute: number): number[] {
  const wall = day * DAY_MS + minute * MINUTE_MS;
  const offsetBefore = offsetAt(timeZone, wall - DAY_MS);
  // Most days: the same offset on either side, so no change in between and exactly one instant.
  if (offsetAt(timeZone, wall + DAY_MS) === offsetBefore) return [wall - offsetBefore];
  const found = new Set<number>();
  for (const probe of [wall - DAY_MS, wall, wall + DAY_MS]) {
    const candidate = wall - offsetAt(timeZone, probe);
    if (wallClockMs(timeZone, candidate) === wall) found.add(candidate);
  }
  return [...found];
}

/** The instants in (after, until] at which the zone's offset changes, found day by day, to the millisecond. */
function offsetChanges(timeZone: string, after: number, until: number): number[] {
  const changes: number[] = [];
  let before = after;
  let beforeOffset = offsetAt(timeZone, before);
  while (before < until) {
    const next = Math.min(before + DAY_MS, until);
    const nextOffset = offsetAt(timeZone, next);
    if (nextOffset !== beforeOffset) {
      let low = before;
      let high = next;
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (offsetAt(timeZone, middle) === beforeOffset) low = middle;
        else high = middle;
      }
      changes.push(high);
    }
    before = next;
    beforeOffset = nextOffset;
  }
  return changes;
}

// ---------------------------------------------------------------------------------------------
// Open or closed

const rangesOn = (schedule: Schedule, weekday: Weekday): readonly OpeningRange[] => schedule.days[weekday] ?? [];

/** Whether a local day and minute falls in the schedule's hours (holiday mode aside). */
function isOpenAtLocal(schedule: Schedule, { day, minute }: LocalMoment): boolean {
  if (schedule.holidays.includes(dateOf(day))) return false;
  for (const range of rangesOn(schedule, weekdayOf(day))) {
    const from = minutesOf(range.from);
    const to = minutesOf(range.to);
    if (to > from ? from <= minute && minute < to : minute >= from) return true;
  }
  // Yesterday's overnight ranges, unless yesterday was a holiday and they never started.
  if (schedule.holidays.includes(dateOf(day - 1))) return false;
  for (const range of rangesOn(schedule, weekdayOf(day - 1))) {
    const from = minutesOf(range.from);
    const to = minutesOf(range.to);
    if (to <= from && minute < to) return true;
  }
  return false;
}

/**
 * Whether the organisation is open at an instant: its local weekday and time, holidays and holiday
 * mode. The schedule is one `parseSchedule` accepted: an unknown zone throws a RangeError.
 */
export function isOpenAt(schedule: Schedule, instant: Date): boolean {
  if (schedule.holidayMode) return false;
  return isOpenAtLocal(schedule, localMoment(schedule.timeZone, instant.getTime()));
}

/**
 * When the organisation next opens, for the away message: the instant itself when open, null in
 * holiday mode or when nothing opens within NEXT_OPENING_DAYS. It can only open at a range's start
 * (on a day that is not a holiday) or when the clocks change, so those instants are tried in order.
 */
export function nextOpening(schedule: Schedule, instant: Date): Date | null {
  if (schedule.holidayMode) return null;
  if (isOpenAt(schedule, instant)) return new Date(instant.getTime());
  const now = instant.getTime();
  const until = now + NEXT_OPENING_DAYS * DAY_MS;
  const { timeZone } = schedule;
  const today = localMoment(timeZone, now).day;
  const candidates = offsetChanges(timeZone, now, until);
  for (let day = today; day <= today + NEXT_OPENING_DAYS + 1; day++) {
    if (schedule.holidays.includes(dateOf(day))) continue;
    for (const range of rangesOn(schedule, weekdayOf(day))) candidates.push(...instantsAtWallTime(timeZone, day, minutesOf(range.from)));
  }
  candidates.sort((a, b) => a - b);
  const opening = candidates.find((at) => at > now && at <= until && isOpenAt(schedule, new Date(at)));
  return opening === undefined ? null : new Date(opening);
}

// ---------------------------------------------------------------------------------------------
// Validation for the business hours form: codes, which the form turns into words.

export type ScheduleErrorCode =
  /** Not an object, or a field of the wrong type. */
  | "invalid_input"
  | "unknown_time_zone"
  /** A key of `days` that is not 0 to 6. */
  | "invalid_day"
  /** Not H:MM or HH:MM from 00:00 to 23:59 (24:00 allowed as `to`). */
  | "invalid_time"
  | "too_many_ranges"
  /** The range overlaps an earlier one of the same day, or the night part of the day before's. */
  | "overlap"
  /** Not a real date written YYYY-MM-DD. */
  | "invalid_holiday"
  | "too_many_holidays";

export interface ScheduleError {
  code: ScheduleErrorCode;
  field?: "timeZone" | "days" | "holidays" | "holidayMode" | "from" | "to";
  day?: Weekday;
  /** The range's position in its day, or the holiday's in the list. */
  index?: number;
}

export type ScheduleParse = { ok: true; schedule: Schedule } | { ok: false; errors: ScheduleError[] };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The zone's name as the runtime spells it ("africa/nairobi" → "Africa/Nairobi"), or null when it does
 * not know the zone. Offsets ("+03:00"), which newer engines accept, are not IANA zones and are refused.
 * Nothing is cached here: a form may send any number of names.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z]/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * A schedule from a form or JSON: checked, with the zone spelt as the runtime does, times written
 * HH:MM and holidays sorted and each once. A missing day is closed, missing holidays none, a missing holidayMode off.
 */
export function parseSchedule(input: unknown): ScheduleParse {
  if (!isRecord(input)) return { ok: false, errors: [{ code: "invalid_input" }] };
  const errors: ScheduleError[] = [];
  const timeZone = typeof input.timeZone === "string" ? canonicalTimeZone(input.timeZone.trim()) : null;
  if (!timeZone) errors.push({ code: "unknown_time_zone", field: "timeZone" });
  const days = parseDays(input.days, errors);
  const holidays = parseHolidays(input.holidays, errors);
  if (input.holidayMode !== undefined && typeof input.holidayMode !== "boolean")
    errors.push({ code: "invalid_input", field: "holidayMode" });
  if (errors.length > 0 || !timeZone) return { ok: false, errors };
  return { ok: true, schedule: { timeZone, days, holidays, holidayMode: input.holidayMode === true } };
}

/** Everything wrong with a schedule; empty when it can be saved. */
export function checkSchedule(input: unknown): ScheduleError[] {
  const parsed = parseSchedule(input);
  return parsed.ok ? [] : parsed.errors;
}

const twoDigits = (value: number) => String(value).padStart(2, "0");
const timeOf = (minutes: number) => `${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}`;

function parseDays(input: unknown, errors: ScheduleError[]): Schedule["days"] {
  const days: Record<Weekday, OpeningRange[]> = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };
  if (input === undefined) return days;
  if (!isRecord(input)) {
    errors.push({ code: "invalid_input", field: "days" });
    return days;
  }
  for (const [key, ranges] of Object.entries(input)) {
    if (!/^[0-6]$/.test(key)) {
      errors.push({ code: "invalid_day", field: "days" });
      continue;
    }
    const day = Number(key) as Weekday;
    if (!Array.isArray(ranges)) errors.push({ code: "invalid_input", field: "days", day });
    else if (ranges.length > MAX_RANGES_PER_DAY) errors.push({ code: "too_many_ranges", field: "days", day });
    else days[day] = parseRanges(day, ranges, errors);
  }
  if (!errors.some((error) => error.field === "days" || error.field === "from" || error.field === "to")) errors.push(...overlaps(days));
  return days;
}

function parseRanges(day: Weekday, ranges: unknown[], errors: ScheduleError[]): OpeningRange[] {
  const parsed: OpeningRange[] = [];
  ranges.forEach((range, index) => {
    if (!isRecord(range)) {
      errors.push({ code: "invalid_input", field: "days", day, index });
      return;
    }
    const from = typeof range.from === "string" ? minutesOf(range.from.trim()) : NaN;
    const to = typeof range.to === "string" ? minutesOf(range.to.trim()) : NaN;
    if (!(from < MINUTES_PER_DAY)) errors.push({ code: "invalid_time", field: "from", day, index });
    if (Number.isNaN(to)) errors.push({ code: "invalid_time", field: "to", day, index });
    parsed.push({ from: timeOf(from), to: timeOf(to) });
  });
  return parsed;
}

/**
 * Ranges that overlap, day by day, counting the night part of the day before's overnight ranges as
 * the day's own (touching ranges, 09:00–12:00 and 12:00–17:00, are fine). Each range is reported once.
 */
function overlaps(days: Schedule["days"]): ScheduleError[] {
  const errors: ScheduleError[] = [];
  const reported = new Set<string>();
  for (const day of WEEKDAYS) {
    const spans: { start: number; end: number; day: Weekday; index: number }[] = [];
    days[day].forEach((range, index) => {
      const from = minutesOf(range.from);
      const to = minutesOf(range.to);
      spans.push({ start: from, end: to > from ? to : MINUTES_PER_DAY, day, index });
    });
    const before = ((day + 6) % 7) as Weekday;
    days[before].forEach((range, index) => {
      const from = minutesOf(range.from);
      const to = minutesOf(range.to);
      if (to <= from && to > 0) spans.push({ start: 0, end: to, day: before, index });
    });
    spans.sort((a, b) => a.start - b.start || a.end - b.end);
    let reach = -1;
    for (const span of spans) {
      const key = `${span.day}:${span.index}`;
      if (span.start < reach && !reported.has(key)) {
        reported.add(key);
        errors.push({ code: "overlap", field: "days", day: span.day, index: span.index });
      }
      reach = Math.max(reach, span.end);
    }
  }
  return errors;
}

function parseHolidays(input: unknown, errors: ScheduleError[]): string[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) {
    errors.push({ code: "invalid_input", field: "holidays" });
    return [];
  }
  const holidays = new Set<string>();
  input.forEach((value: unknown, index) => {
    const date = typeof value === "string" ? value.trim() : "";
    if (isRealDate(date)) holidays.add(date);
    else errors.push({ code: "invalid_holiday", field: "holidays", index });
  });
  if (holidays.size > MAX_HOLIDAYS) errors.push({ code: "too_many_holidays", field: "holidays" });
  return [...holidays].sort();
}

function isRealDate(date: string): boolean {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!parts) return false;
  const at = Date.UTC(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3]));
  return new Date(at).toISOString().slice(0, 10) === date;
}
