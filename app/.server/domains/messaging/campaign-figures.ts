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

/** The queue whose jobs tell failures Meta reports after a campaign finished (campaigns/late-failures.ts). */
export const LATE_FAILURES_QUEUE = "campaigns.late-failures";
/** A burst of failed statuses (Meta sends one webhook each) is told in one line: the job waits this long. */
export const LATE_FAILURES_DELAY_S = 3;

/**
 * Messages of these campaigns failed: for each one that has already told its outcome (its
 * "finished" notification and activity line, `reported_outcome`), one job, a few seconds on, says
 * what changed (decision 114). One pending job per campaign, however many failures arrive meanwhile.
 * In the writer's transaction, so the job exists exactly when the failures do.
 */
export async function campaignMessagesFailed(tx: Executor, campaignIds: (string | null | undefined)[]) {
  const ids = [...new Set(campaignIds.filter((id): id is string => !!id))];
  if (!ids.length) return;
  await tx.execute(sql`
    insert into jobs (queue, payload, run_at, unique_key)
    select ${LATE_FAILURES_QUEUE}, jsonb_build_object('campaignId', c.id), now() + make_interval(secs => ${LATE_FAILURES_DELAY_S}),
           'campaign-late-failures:' || c.id
    from campaigns c where c.id = any(${sql.param(ids)}::uuid[]) and c.reported_outcome is not null
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing`);
}
