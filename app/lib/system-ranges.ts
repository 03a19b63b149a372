/** The admin System tab's time ranges (spec: 1h, 24h, 7d, 30d), each drawn in buckets of a fixed size. */
export const SYSTEM_RANGES = {
  "1h": { hours: 1, bucketSeconds: 60, words: "the last hour", label: "Last hour" },
  "24h": { hours: 24, bucketSeconds: 3600, words: "the last 24 hours", label: "Last 24 hours" },
  "7d": { hours: 7 * 24, bucketSeconds: 4 * 3600, words: "the last 7 days", label: "Last 7 days" },
  "30d": { hours: 30 * 24, bucketSeconds: 24 * 3600, words: "the last 30 days", label: "Last 30 days" },
} as const;
export type SystemRange = keyof typeof SYSTEM_RANGES;
export const DEFAULT_RANGE: SystemRange = "24h";

const isRange = (value: string): value is SystemRange => Object.hasOwn(SYSTEM_RANGES, value);

/**
 * ?range= as the page takes it: absent means the default; a value that is not one of the four is
 * refused with the reason (the page answers 400 and shows the default range under the message).
 */
export function parseRange(value: string | null): { range: SystemRange; error: string | null } {
  if (value === null || value === "") return { range: DEFAULT_RANGE, error: null };
  if (isRange(value)) return { range: value, error: null };
  return {
    range: DEFAULT_RANGE,
    error: `There is no time range "${value.slice(0, 20)}": choose 1h, 24h, 7d or 30d. Showing ${SYSTEM_RANGES[DEFAULT_RANGE].words}.`,
  };
}
