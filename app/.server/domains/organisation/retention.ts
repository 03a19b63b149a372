import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import type { Organization } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { Refusal } from "../../infrastructure/refusal";
import { can } from "../auth";
import { refuseOrganisation, ORGANISATION_REFUSALS } from "./refusals";
import type { OrganisationActor } from "./details";
import { RETENTION_LIMITS, type RetentionPolicy } from "~/lib/retention-limits";
import { m } from "~/paraglide/messages";

/** The organisation's retention as the page shows it: read with the session, no statement of its own. */
export function retentionPolicy(organization: Organization): RetentionPolicy {
  return {
    messageDays: organization.messageRetentionDays,
    mediaDays: organization.mediaRetentionDays,
    logDays: organization.logRetentionDays,
  };
}

const within = (days: number, limits: { min: number; max: number }) => Number.isInteger(days) && days >= limits.min && days <= limits.max;

/** A policy outside the platform's limits: 400, in words, the field it is about named (nothing changes). */
function checkLimits(next: RetentionPolicy) {
  const fields = [
    ["messageDays", RETENTION_LIMITS.messages],
    ["mediaDays", RETENTION_LIMITS.media],
    ["logDays", RETENTION_LIMITS.logs],
  ] as const;
  for (const [field, limits] of fields)
    if (!within(next[field], limits))
      throw new Refusal({
        domain: "organisation",
        status: 400,
        code: "retention_out_of_range",
        message: m.retention_days_range({ min: limits.min, max: limits.max }),
        field,
      });
  if (next.mediaDays > next.messageDays)
    throw new Refusal({
      domain: "organisation",
      status: 400,
      code: "retention_out_of_range",
      message: m.retention_media_longer_than_messages(),
      field: "mediaDays",
    });
}

/**
 * Sets how long the organisation keeps message bodies, media and logs (owners and admins), within
 * the platform's limits (the database's checks repeat them). The change and the activity record
 * commit together. Answers whether anything changed.
 */
export async function updateRetentionPolicy(actor: OrganisationActor, next: RetentionPolicy, meta?: RequestMeta) {
  if (!can(actor.role, "organization:manage")) throw refuseOrganisation(403, "forbidden", ORGANISATION_REFUSALS.forbidden);
  checkLimits(next);
  const before = retentionPolicy(actor.organization);
  if (before.messageDays === next.messageDays && before.mediaDays === next.mediaDays && before.logDays === next.logDays) return false;
  await db().transaction(async (tx) => {
    await tx.execute(sql`
      update organizations set message_retention_days = ${next.messageDays}, media_retention_days = ${next.mediaDays},
             log_retention_days = ${next.logDays}, updated_at = now()
      where id = ${actor.organization.id}`);
    await recordActivity(
      {
        organizationId: actor.organization.id,
        userId: actor.user.id,
        type: "settings",
        status: "success",
        action: "Data retention changed",
        details: englishOf(
          words("retention_activity_detail_changed", { messages: next.messageDays, media: next.mediaDays, logs: next.logDays }),
        ),
        meta,
      },
      tx,
    );
  });
  return true;
}
