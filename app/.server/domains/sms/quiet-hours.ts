/**
 * Quiet hours for SMS (decision 148): no SMS between 20:00 and 08:00 in Nairobi, the hours Safaricom
 * keeps promotional SMS out of (08:00-18:00 is theirs for promotions; Jumbe stretches it to 20:00 for
 * one-to-one messages). An answer to a customer who wrote in the last 24 hours is not held back: they
 * are waiting for it.
 */
export const SMS_QUIET_FROM_HOUR = 20;
export const SMS_QUIET_UNTIL_HOUR = 8;
const NAIROBI_OFFSET_HOURS = 3;
const ANSWER_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The hour in Nairobi (UTC+3 all year, no daylight saving). */
export function nairobiHour(now: Date): number {
  return (now.getUTCHours() + NAIROBI_OFFSET_HOURS) % 24;
}

export function inSmsQuietHours(now: Date, lastInboundAt: Date | null): boolean {
  if (lastInboundAt && now.getTime() - lastInboundAt.getTime() < ANSWER_WINDOW_MS) return false;
  const hour = nairobiHour(now);
  return hour >= SMS_QUIET_FROM_HOUR || hour < SMS_QUIET_UNTIL_HOUR;
}
