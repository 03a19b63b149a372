import { rawQuery } from "../../infrastructure/db/client";
import { recordActivity } from "../activity/record";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { can } from "../auth/permissions";
import { formatNumber } from "~/lib/dates";
import { APPROVAL_THRESHOLD_MAX } from "~/lib/schemas/approval";
import type { Actor } from "./members";
import { refuseTeam, TEAM_MESSAGES } from "./refusals";

/** Broadcast approval in words, for the Team page and the activity log. */
export function approvalInWords(threshold: number | null) {
  return threshold === null
    ? "Broadcast approval is off: campaigns and broadcasts send as soon as they are confirmed."
    : `Broadcast approval is on for more than ${formatNumber(threshold)} recipient${threshold === 1 ? "" : "s"}: a campaign or broadcast to more people waits until an owner or admin other than its author approves it (one made with the API key: an owner or admin who has never seen that key).`;
}

/**
 * The owner turns broadcast approval on with a threshold of recipients (a whole number from 0 to a
 * million), or off (null). Campaigns already waiting keep waiting; the next start compares again.
 */
export async function setBroadcastApproval(actor: Actor, threshold: number | null, meta?: RequestMeta) {
  if (!can(actor.role, "approvals:configure")) throw refuseTeam(403, "forbidden", TEAM_MESSAGES.approvalOwnerOnly);
  if (threshold !== null && (!Number.isSafeInteger(threshold) || threshold < 0 || threshold > APPROVAL_THRESHOLD_MAX))
    throw refuseTeam(400, "invalid_threshold", "Give a whole number from 0 to 1,000,000.", "threshold");
  const [before] = await rawQuery<{ approval_threshold: number | null }>(
    `with old as (select approval_threshold from organizations where id = $1)
     update organizations set approval_threshold = $2, updated_at = now()
     where id = $1 returning (select approval_threshold from old)`,
    [actor.organization.id, threshold],
  );
  if (!before || before.approval_threshold === threshold) return;
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action:
      threshold === null
        ? "Broadcast approval turned off"
        : before.approval_threshold === null
          ? "Broadcast approval turned on"
          : "Broadcast approval threshold changed",
    details: approvalInWords(threshold),
    meta,
  });
}
