import { m } from "~/paraglide/messages";

/**
 * The admin System tab's time ranges (spec: 1h, 24h, 7d, 30d), each drawn in buckets of a fixed size;
 * `words` ("the last hour") and `label` ("Last hour") are read in the request's language.
 */
export const SYSTEM_RANGES = {
  "1h": {
    hours: 1,
    bucketSeconds: 60,
    get words() {
      return m.admin_range_1h_words();
    },
    get label() {
      return m.admin_range_1h_label();
    },
  },
  "24h": {
    hours: 24,
    bucketSeconds: 3600,
    get words() {
      return m.admin_range_24h_words();
    },
    get label() {
      return m.admin_range_24h_label();
    },
  },
  "7d": {
    hours: 7 * 24,
    bucketSeconds: 4 * 3600,
    get words() {
      return m.admin_range_7d_words();
    },
    get label() {
      return m.admin_range_7d_label();
    },
  },
  "30d": {
    hours: 30 * 24,
    bucketSeconds: 24 * 3600,
    get words() {
      return m.admin_range_30d_words();
    },
    get label() {
      return m.admin_range_30d_label();
    },
  },
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
    error: m.admin_range_unknown({ value: value.slice(0, 20), range: SYSTEM_RANGES[DEFAULT_RANGE].words }),
  };
}
