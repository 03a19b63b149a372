import * as z from "zod/mini";
import { m } from "~/paraglide/messages";
import { RETENTION_LIMITS, type RetentionKind } from "~/lib/retention-limits";

/** A whole number of days (as typed) within the platform's limits for that kind of data. */
const days = (kind: RetentionKind) => {
  const { min, max } = RETENTION_LIMITS[kind];
  const error = () => m.retention_days_range({ min, max });
  return z.pipe(
    z.string({ error }).check(z.refine((v) => /^\d{1,5}$/.test(v.trim()) && Number(v) >= min && Number(v) <= max, { error })),
    z.transform((v) => Number(v.trim())),
  );
};

/** Settings → Data retention (issue 78): days of message bodies, media and logs; media never outlive bodies. */
export const RetentionSchema = z.object({ messageDays: days("messages"), mediaDays: days("media"), logDays: days("logs") }).check(
  z.refine((v) => v.mediaDays <= v.messageDays, {
    path: ["mediaDays"],
    error: () => m.retention_media_longer_than_messages(),
  }),
);

export type RetentionInput = z.infer<typeof RetentionSchema>;
