/**
 * Jumbe's one time zone and its formatters. Organisations are in Kenya: every date a page shows, every
 * "today" and "this month", is Nairobi's. Intl formatters are costly to build (a dashboard spent
 * 7-10% of its time building them per call), so each is built once here and reused.
 */
export const TIME_ZONE = "Africa/Nairobi";
export const LOCALE = "en-KE";

// Africa/Nairobi has been UTC+3 all year since 1960: no daylight saving to follow.
export const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;

const dateTime = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeStyle: "short", timeZone: TIME_ZONE });
const dateOnly = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeZone: TIME_ZONE });
const numbers = new Intl.NumberFormat(LOCALE);
const shillings = new Intl.NumberFormat(LOCALE, { style: "currency", currency: "KES" });

type Instant = string | number | Date;
const toDate = (at: Instant) => (at instanceof Date ? at : new Date(at));

/** "22 Nov 2026, 14:05": a moment, in Nairobi. */
export function formatWhen(at: Instant) {
  return dateTime.format(toDate(at));
}

/** "22 Nov 2026": a day, in Nairobi. */
export function formatDay(at: Instant) {
  return dateOnly.format(toDate(at));
}

/** "12,345": a count, grouped the Kenyan way. */
export function formatNumber(n: number) {
  return numbers.format(n);
}

/** "Ksh 1,250.00": an amount in shillings. */
export function formatKes(amount: number) {
  return shillings.format(amount);
}

/** The Nairobi calendar date of an instant, as YYYY-MM-DD. */
export function nairobiDate(at: Date) {
  return new Date(at.getTime() + NAIROBI_OFFSET_MS).toISOString().slice(0, 10);
}

/** 00:00 in Nairobi on a YYYY-MM-DD date. */
export function nairobiMidnight(ymd: string) {
  return new Date(Date.parse(`${ymd}T00:00:00.000+03:00`));
}
