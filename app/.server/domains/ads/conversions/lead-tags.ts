import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordActivity } from "../../activity";
import { can } from "../../auth";
import type { ConversionActor } from "./consent";
import { refuseConversion } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * The tags that mean "converted" (issue 77, decision 158), chosen by an owner or admin in Settings →
 * Ads. Adding one to a contact whose conversation came from an ad queues its LeadSubmitted: a trigger
 * on contacts does it (migration 0081) in the transaction that writes the tags, so no path skips it.
 */
export async function setLeadTags(actor: ConversionActor, tags: readonly string[], meta?: RequestMeta) {
  if (!can(actor.role, "whatsapp:manage")) throw refuseConversion(403, "forbidden", m.ads_conversions_readonly());
  const organizationId = actor.organization.id;
  const sorted = [...new Set(tags)].sort();
  return db().transaction(async (tx) => {
    const [before] = await queryRows<{ lead_tags: string[] }>(
      tx,
      sql`select lead_tags from ad_conversion_settings where organization_id = ${organizationId} for update`,
    );
    if ((before?.lead_tags ?? []).join("\n") === sorted.join("\n")) return false;
    await tx.execute(sql`
      insert into ad_conversion_settings (organization_id, lead_tags, changed_by, changed_at)
      values (${organizationId}, ${sql.param(sorted)}::text[], ${actor.user.id}, now())
      on conflict (organization_id) do update set lead_tags = excluded.lead_tags, changed_by = excluded.changed_by, changed_at = now()`);
    await recordActivity(
      {
        organizationId,
        userId: actor.user.id,
        type: "settings",
        status: "success",
        action: "Tags that mean converted changed",
        meta,
      },
      tx,
    );
    return true;
  });
}
