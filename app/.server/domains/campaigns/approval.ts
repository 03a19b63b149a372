import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { can, type Role } from "../auth";
import { DECLINE_REASON_MAX, APPROVAL_MESSAGES } from "~/lib/schemas/approval";
import { readStoredCampaign, refreshLeftOut, withdrawUnsent, type StoredCampaign } from "./lifecycle";
import type { Actor } from "./actor";
import { refuseCampaign } from "./refusals";
import { wakeFeeder } from "./wake";
import { notifyApprovalDecided } from "../notifications";
import { kindLabel } from "./approval-request";
import { hasHeldApiKey } from "../developer";
import { statusWords } from "~/lib/campaign-live";
import { m } from "~/paraglide/messages";

/**
 * Broadcast approval (maker-checker, decision 033). When the owner has set a threshold
 * (organizations.approval_threshold), a campaign or broadcast that would reach more people than it
 * waits in "awaiting_approval" until an owner or admin other than its author approves it. Nothing
 * is sent meanwhile: the feeder only picks up campaigns that are scheduled or sending.
 *
 * The count is the engine's own: a campaign that starts now has its audience frozen (as every start
 * does) and the frozen recipients are compared; one scheduled for later is counted with the same
 * rules when it is confirmed, and every later start (its time coming, a resume) compares the frozen
 * count again, so an audience that grew past the threshold waits too, unless it was approved.
 *
 * A campaign made through the API has no author; whoever has held the API key it was made with
 * (created or regenerated it, or revealed it) could have made it, so none of them may approve or
 * decline it (decision 045).
 *
 * The two moments other parts hook into are `announceApprovalRequest` and `announceApprovalDecision`:
 * each runs once, after the change is committed.
 */

export const APPROVAL_WORDS = {
  get forbidden() {
    return m.messaging_approval_forbidden();
  },
  get ownCampaign() {
    return m.messaging_approval_own_campaign();
  },
  get keyHolder() {
    return m.messaging_approval_key_holder();
  },
  notAwaiting: (kind: string, status: string) => {
    const broadcast = kind === "broadcast";
    if (status === "awaiting_approval")
      return broadcast ? m.messaging_approval_waiting_broadcast() : m.messaging_approval_waiting_campaign();
    const state = statusWords(status).toLowerCase();
    return broadcast ? m.messaging_approval_decided_broadcast({ state }) : m.messaging_approval_decided_campaign({ state });
  },
};

/** Who approves or declines: a member with their role (an API key never does). */
export interface Approver extends Actor {
  userId: string;
  role: Role;
}

/** THE place where an approval was decided (after the commit): the activity log records who and how. */
async function announceApprovalDecision(
  approver: Approver,
  campaign: { id: string; kind: string; name: string; created_by?: string | null },
  decision: { approved: true; outcome: "sending" | "scheduled" } | { approved: false; reason: string },
) {
  await recordActivity({
    organizationId: approver.organizationId,
    userId: approver.userId,
    type: "message",
    status: decision.approved ? "success" : "warning",
    action: `${kindLabel(campaign)} ${decision.approved ? "approved" : "declined"}`,
    details: decision.approved
      ? `${campaign.name}: ${decision.outcome === "sending" ? "sending now" : "scheduled for its time"}.`
      : `${campaign.name}: ${decision.reason}`,
    meta: approver.meta,
  });
  await notifyApprovalDecided(
    db(),
    { organizationId: approver.organizationId, id: campaign.id, name: campaign.name, kind: campaign.kind, createdBy: campaign.created_by },
    decision.approved
      ? { by: approver.userId, approved: true, outcome: decision.outcome }
      : { by: approver.userId, approved: false, reason: decision.reason },
  );
}

/** Owners and admins decide; anybody else is refused before anything is read. */
export function requireApprover(actor: { role: Role }) {
  if (!can(actor.role, "campaigns:approve")) throw refuseCampaign(403, "approval_forbidden", APPROVAL_WORDS.forbidden);
}

/**
 * The campaign can be decided by this approver: it waits, they are not its author, and, for one
 * made through the API, they have never held the key it was made with.
 */
async function checkDecidable(executor: Executor, row: StoredCampaign, approver: Approver) {
  if (row.created_by && row.created_by === approver.userId) throw refuseCampaign(403, "own_campaign", APPROVAL_WORDS.ownCampaign);
  if (row.api_key_id && (await hasHeldApiKey(executor, row.api_key_id, approver.userId)))
    throw refuseCampaign(403, "key_holder", APPROVAL_WORDS.keyHolder);
  if (row.status !== "awaiting_approval") throw refuseCampaign(409, "campaign_state", APPROVAL_WORDS.notAwaiting(row.kind, row.status));
}

/**
 * Approves a campaign that waits: it goes on exactly as confirming it would have. One whose audience
 * was frozen (it was to start now) starts sending; one scheduled waits for its time, and one whose
 * time has passed meanwhile starts at once (the feeder starts it, checked again, in its next round,
 * which the approval wakes). The row is locked and its status checked, so two approvals at once
 * start it once: the second is refused (409).
 */
export async function approveCampaign(approver: Approver, id: string) {
  requireApprover(approver);
  const decided = await db().transaction(async (tx) => {
    const row = await readStoredCampaign(tx, approver.organizationId, id, true);
    await checkDecidable(tx, row, approver);
    const frozen = row.audience_size !== null && row.audience_size !== undefined;
    const outcome: "sending" | "scheduled" = frozen ? "sending" : "scheduled";
    await tx.execute(sql`
      update campaigns set approved_by = ${approver.userId}, approved_at = now(), updated_at = now(), status = ${outcome},
             started_at = ${frozen ? sql`now()` : sql`null`}, scheduled_for = ${frozen ? sql`scheduled_for` : sql`coalesce(scheduled_for, now())`}
      where id = ${row.id} and status = 'awaiting_approval'`);
    const late = !frozen && (!row.scheduled_for || new Date(row.scheduled_for).getTime() <= Date.now());
    return { row, outcome: late ? ("sending" as const) : outcome };
  });
  await announceApprovalDecision(approver, decided.row, { approved: true, outcome: decided.outcome });
  wakeFeeder();
  return { outcome: decided.outcome };
}

/**
 * Declines a campaign that waits, with the approver's reason: it is cancelled (a declined campaign
 * cannot be edited or started again; its author makes a corrected one), its frozen recipients left
 * out, and the page shows who declined it and why.
 */
export async function declineCampaign(approver: Approver, id: string, reason: string) {
  requireApprover(approver);
  const why = String(reason ?? "")
    .replace(/\s+/g, " ")
    .trim();
  if (!why) throw refuseCampaign(400, "invalid_reason", APPROVAL_MESSAGES.reasonRequired, "reason");
  if ([...why].length > DECLINE_REASON_MAX) throw refuseCampaign(400, "invalid_reason", APPROVAL_MESSAGES.reasonTooLong, "reason");
  const row = await db().transaction(async (tx) => {
    const stored = await readStoredCampaign(tx, approver.organizationId, id, true);
    await checkDecidable(tx, stored, approver);
    await tx.execute(sql`
      update campaigns set status = 'cancelled', finished_at = now(), updated_at = now(), counted_at = null,
             declined_by = ${approver.userId}, declined_at = now(), decline_reason = ${why}
      where id = ${stored.id}`);
    await withdrawUnsent(tx, stored.id);
    await refreshLeftOut(tx, stored.id);
    return stored;
  });
  await announceApprovalDecision(approver, row, { approved: false, reason: why });
}

/**
 * For the campaign's page: whether it was made through the API, and whether this member has held
 * the key it was made with (then they cannot decide it, and the page says why).
 */
export async function apiKeyApproval(organizationId: string, campaignId: string, userId: string) {
  const rows = await queryRows<{ api_key_id: string | null }>(
    db(),
    sql`select api_key_id from campaigns where organization_id = ${organizationId} and id = ${campaignId}`,
  );
  const apiKeyId = rows[0]?.api_key_id;
  if (!apiKeyId) return { madeWithApiKey: false, heldKey: false };
  return { madeWithApiKey: true, heldKey: await hasHeldApiKey(db(), apiKeyId, userId) };
}
