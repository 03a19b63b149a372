/** A UUID in its canonical form (8-4-4-4-12 hex digits): what a uuid column takes without an error. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_PATTERN.test(value);

/** A timestamptz as PostgreSQL writes it (`2026-11-23 13:32:06.123456+00`), a real day of a year from 1. */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)$/;

export function isTimestamp(text: string) {
  const match = TIMESTAMP.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A keyset cursor as URLs and the API carry it: a row's created_at (as the database wrote it) and id. */
export const encodeKeysetCursor = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString("base64url");

/** The cursor's position, or undefined for anything this code did not write (never an error from the database). */
export function decodeKeysetCursor(cursor: string | null | undefined) {
  if (!cursor || cursor.length > 200) return undefined;
  const [at, id, extra] = Buffer.from(cursor, "base64url").toString().split("|");
  if (extra !== undefined || !at || !id || !isUuid(id) || !isTimestamp(at)) return undefined;
  return { at, id };
}
