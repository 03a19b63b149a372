import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { ReportedOutcome } from "../../infrastructure/db/schema/campaigns";
import { englishOf, words } from "../../infrastructure/words/said";
import { recordActivity } from "../activity";
import { retellCampaignFinished } from "../notifications";
import { LATE_FAILURES_DELAY_S, LATE_FAILURES_QUEUE } from "../messaging";
import { campaignOutcome, failedByWords, outcomeWords, type CampaignOutcome } from "./outcome";

export { LATE_FAILURES_QUEUE };

/**
 * Failures Meta reports after a campaign finished (decision 114). A campaign "completes" once Meta
 * has accepted or refused every message; Meta's `failed` statuses for accepted messages (not on
 * WhatsApp, the marketing limit, 131047...) come in their own webhooks after that, seconds or hours
 * later. What the campaign's "finished" notification and activity line said is kept on the campaign
 * (`reported_outcome`); each failure after it queues one job a campaign (messaging/campaign-figures.ts),
 * which, under the campaign's row lock, counts the outcome again and tells only the difference:
 * the notification says the outcome as it now is (the same row, unread again), and the activity log
 * gets one line with the failures reported since the last line and the outcome in all. A job run
 * twice, or two at once, finds nothing more to tell: nothing is counted twice.
 */

/** What the finished lines have said, stored: the outcome and how many had failed when it finished. */
export interface StoredOutcome extends ReportedOutcome {
  /** Failed when it finished (the "finished" line's count): the notification says how many came later. */
  failedWhenFinished?: number;
}

/** The outcome as the campaign row keeps it, with the failures at the end. */
export const storedOutcome = (outcome: CampaignOutcome, failedWhenFinished: number): StoredOutcome => ({
  ...outcome,
  failedWhenFinished,
});

/**
 * At completion, in its transaction: what the finished lines say is kept, and a job is queued to
 * look again a few seconds on (a failure committed while the completion counted is told then).
 */
export async function keepFinishedOutcome(tx: Executor, campaignId: string, outcome: CampaignOutcome) {
  await tx.execute(sql`
    update campaigns set reported_outcome = ${JSON.stringify(storedOutcome(outcome, outcome.failed))}::jsonb where id = ${campaignId}`);
  await tx.execute(sql`
    insert into jobs (queue, payload, run_at, unique_key)
    values (${LATE_FAILURES_QUEUE}, ${JSON.stringify({ campaignId })}::jsonb, now() + make_interval(secs => ${LATE_FAILURES_DELAY_S}),
            ${`campaign-late-failures:${campaignId}`})
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing`);
}

/** The failures by reason in `now` beyond those in `before`, most first (as outcome.ts orders them). */
function failedSince(before: ReportedOutcome, now: CampaignOutcome): CampaignOutcome["failedBy"] {
  const told = new Map(before.failedBy.map((f) => [f.words, f.count]));
  return now.failedBy.map((f) => ({ ...f, count: f.count - (told.get(f.words) ?? 0) })).filter((f) => f.count > 0);
}

/**
 * Tells a finished campaign's failures reported since its last line, if any (the job's work).
 * Answers how many failures it told (0: nothing new, or the campaign has not finished).
 */
export async function tellLateFailures(campaignId: string): Promise<number> {
  return db().transaction(async (tx) => {
    const [row] = await queryRows<{
      organization_id: string;
      name: string;
      kind: string;
      created_by: string | null;
      reported_outcome: StoredOutcome;
    }>(
      tx,
      sql`select organization_id, name, kind, created_by, reported_outcome from campaigns
          where id = ${campaignId} and reported_outcome is not null for update`,
    );
    if (!row) return 0;
    const before = row.reported_outcome;
    const now = await campaignOutcome(tx, campaignId);
    const more = now.failed - before.failed;
    if (more <= 0) return 0;
    const campaign = { organizationId: row.organization_id, id: campaignId, name: row.name, kind: row.kind, createdBy: row.created_by };
    const failedWhenFinished = before.failedWhenFinished ?? before.failed;
    await retellCampaignFinished(tx, campaign, outcomeWords(now), now.failed - failedWhenFinished);
    await recordActivity(
      {
        organizationId: row.organization_id,
        type: "message",
        status: "warning",
        action: `${row.kind === "broadcast" ? "Broadcast" : "Campaign"} failures reported after it finished`,
        details: englishOf(
          words("app_activity_detail_campaign_failed_later", {
            name: row.name,
            count: more,
            reasons: failedByWords(failedSince(before, now)),
            outcome: outcomeWords(now),
          }),
        ),
      },
      tx,
    );
    await tx.execute(sql`
      update campaigns set reported_outcome = ${JSON.stringify(storedOutcome(now, failedWhenFinished))}::jsonb where id = ${campaignId}`);
    return more;
  });
}

/** The job: one campaign a job. */
export async function runLateFailureJobs(jobs: { payload: { campaignId: string } }[]) {
  for (const job of jobs) await tellLateFailures(job.payload.campaignId);
}
