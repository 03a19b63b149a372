import { rawQuery } from "../../infrastructure/db/client";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { can } from "../auth";
import { formatNumber } from "~/lib/dates";
import { byCount, intlLocale, numberFormat } from "~/lib/intl";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";
import { APPROVAL_THRESHOLD_MAX } from "~/lib/schemas/approval";
import type { Actor } from "./members";
import { refuseTeam, TEAM_MESSAGES } from "./refusals";

/**
 * Broadcast approval in words: in the request's language for the Team page, in `locale` when given
 * (the activity log keeps English, as its other words).
 */
export function approvalInWords(threshold: number | null, locale?: Locale): string {
  const options = locale ? { locale } : {};
  if (threshold === null) return m.settings_team_approval_off({}, options);
  if (!locale)
    return byCount(
      threshold,
      () => m.settings_team_approval_on_one({ count: formatNumber(threshold) }),
      () => m.settings_team_approval_on_other({ count: formatNumber(threshold) }),
    );
  const tag = intlLocale(locale);
  const count = numberFormat(tag).format(threshold);
  return new Intl.PluralRules(tag).select(threshold) === "one"
    ? m.settings_team_approval_on_one({ count }, options)
    : m.settings_team_approval_on_other({ count }, options);
}

/**
 * The owner turns broadcast approval on with a threshold of recipients (a whole number from 0 to a
 * million), or off (null). Campaigns already waiting keep waiting; the next start compares again.
 */
export async function setBroadcastApproval(actor: Actor, threshold: number | null, meta?: RequestMeta) {
  if (!can(actor.role, "approvals:configure")) throw refuseTeam(403, "forbidden", TEAM_MESSAGES.approvalOwnerOnly);
  if (threshold !== null && (!Number.isSafeInteger(threshold) || threshold < 0 || threshold > APPROVAL_THRESHOLD_MAX))
    throw refuseTeam(
      400,
      "invalid_threshold",
      m.settings_team_refusal_threshold({ max: formatNumber(APPROVAL_THRESHOLD_MAX) }),
      "threshold",
    );
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
    details: approvalInWords(threshold, "en"),
    meta,
  });
}
