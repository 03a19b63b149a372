import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import type { Executor } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { notifyApprovalRequested } from "../notifications";
import type { Actor } from "./actor";

/**
 * When a campaign must wait for approval (decision 033), and the moment it is put to approval. The
 * lifecycle asks these on every start; approving and declining are approval.ts's.
 */

/** The rule: approval is on (a threshold) and the campaign reaches more people than it. */
export const overThreshold = (threshold: number | null | undefined, recipients: number) =>
  threshold !== null && threshold !== undefined && recipients > threshold;

/**
 * Whether a campaign reaching `recipients` people must wait for approval now: approval is on, the
 * count is above the threshold, and the campaign (when it exists) has not been approved already.
 */
export async function needsApproval(executor: Executor, organizationId: string, recipients: number, campaignId?: string) {
  const row = await queryRow<{ threshold: number | null; approved: boolean | null }>(
    executor,
    sql`
    select o.approval_threshold as threshold,
           ${campaignId ? sql`(select approved_at is not null from campaigns where id = ${campaignId})` : sql`false`} as approved
    from organizations o where o.id = ${organizationId}`,
  );
  return { waits: !!row && !row.approved && overThreshold(row.threshold, recipients), threshold: row?.threshold ?? null };
}

/** Puts a campaign in "awaiting_approval" inside the caller's transaction: not started, nothing sent. */
export async function requestApproval(tx: Executor, campaignId: string) {
  // While it waits nothing else writes updated_at, so it says when approval was asked for.
  await tx.execute(sql`update campaigns set status = 'awaiting_approval', started_at = null, updated_at = now() where id = ${campaignId}`);
}

export const kindLabel = (row: { kind: string }) => (row.kind === "broadcast" ? "Broadcast" : "Campaign");

/**
 * THE place where a campaign has been put to approval (after the commit): the activity log says so.
 * Every path that can make a campaign wait calls it: confirming one, its scheduled time, a resume.
 */
export async function announceApprovalRequest(
  actor: Actor,
  campaign: { id: string; kind: string; name: string },
  recipients: number,
  threshold: number | null,
) {
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "message",
    status: "warning",
    action: `${kindLabel(campaign)} awaiting approval`,
    // Counts as numbers: English grouped as English groups them, whatever the request's language.
    details: englishOf(
      words(recipients === 1 ? "app_activity_detail_awaiting_approval_one" : "app_activity_detail_awaiting_approval_other", {
        name: campaign.name,
        count: recipients,
        threshold: threshold ?? 0,
      }),
    ),
    meta: actor.meta,
  });
  await notifyApprovalRequested(db(), { organizationId: actor.organizationId, ...campaign }, { by: actor.userId, recipients });
}
