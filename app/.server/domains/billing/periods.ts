/**
 * Billing periods are calendar months in Africa/Nairobi (UTC+3 all year, no daylight saving): a
 * period starts at 00:00 EAT on the 1st, which is 21:00 UTC on the last day of the month before.
 */
const EAT_OFFSET_MS = 3 * 60 * 60 * 1000;

/** The Nairobi calendar date of an instant, `YYYY-MM-DD`. */
export function nairobiDate(at: Date) {
  return new Date(at.getTime() + EAT_OFFSET_MS).toISOString().slice(0, 10);
}

/** The instant a Nairobi date begins. */
export function nairobiMidnight(date: string) {
  return new Date(Date.parse(`${date}T00:00:00Z`) - EAT_OFFSET_MS);
}

export interface Period {
  /** The first day, `YYYY-MM-DD`. */
  start: string;
  /** The last day. */
  end: string;
  /** The first day of the next period. */
  next: string;
  days: number;
}

/** The month `date` (a Nairobi `YYYY-MM-DD`) falls in. */
export function periodOfDate(date: string): Period {
  const [year, month] = date.split("-").map(Number) as [number, number];
  const start = new Date(Date.UTC(year, month - 1, 1));
  const next = new Date(Date.UTC(year, month, 1));
  const end = new Date(next.getTime() - 86_400_000);
  return {
    start: start.toISOString().slice(0, 10),
    end: end.toISOString().slice(0, 10),
    next: next.toISOString().slice(0, 10),
    days: Math.round((next.getTime() - start.getTime()) / 86_400_000),
  };
}

/** The period an instant falls in. */
export const periodAt = (at: Date) => periodOfDate(nairobiDate(at));

/**
 * The month, Jumbe's one definition (issue 72): a calendar month in Africa/Nairobi. The first day
 * (`YYYY-MM-01`) of the month `monthsBack` months before the one `at` falls in (negative: after).
 * Billing, the assistant's monthly usage and the partner programme's settlements all use it; SQL
 * spells the same month `date_trunc('month', at at time zone 'Africa/Nairobi')`.
 */
export function nairobiMonth(at: Date, monthsBack = 0) {
  const local = new Date(at.getTime() + EAT_OFFSET_MS);
  return new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - monthsBack, 1)).toISOString().slice(0, 10);
}

/** The Nairobi month `first` (its first day, `YYYY-MM-01`) as instants: [start, end). */
export function nairobiMonthBounds(first: string) {
  if (!/^\d{4}-(0[1-9]|1[0-2])-01$/.test(first)) throw new RangeError(`A month is named by its first day, not "${first}".`);
  return { start: nairobiMidnight(first), end: nairobiMidnight(periodOfDate(first).next) };
}

/** The period before the one `date` falls in. */
export function previousPeriod(period: Period): Period {
  return periodOfDate(new Date(Date.parse(`${period.start}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10));
}

/** Days from `from` to `to` inclusive (Nairobi dates). */
export function daysBetween(from: string, to: string) {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "1 December 2026". */
export function dayWords(date: string) {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return `${day} ${MONTHS[month - 1]} ${year}`;
}

/** "November 2026". */
export function monthWords(period: Period) {
  const [year, month] = period.start.split("-").map(Number) as [number, number];
  return `${MONTHS[month - 1]} ${year}`;
}
