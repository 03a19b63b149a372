import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";

/**
 * A status (delivered, read, failed) or a reply moved these campaigns' figures: the stored ones are
 * out of date, and the next reader counts them again (counted_at null is "never counted"). In the
 * writer's transaction, so a count that starts after it commits sees the status; a count running
 * meanwhile holds the row, and this waits for it and then marks it again.
 *
 * A sending campaign is left alone: its figures are the feeder's, counted every second or more
 * (a mark on each of its thousands of statuses would have every reader count it). Marking only a
 * row counted since its last mark keeps it to one write per count, whatever the number of statuses.
 */
export async function figuresMoved(tx: Executor, campaignIds: (string | null | undefined)[]) {
  const ids = [...new Set(campaignIds.filter((id): id is string => !!id))];
  if (!ids.length) return;
  await tx.execute(sql`
    update campaigns set counted_at = null
    where id = any(${sql.param(ids)}::uuid[]) and status <> 'sending' and counted_at is not null`);
}
