import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { CONVERSION_WINDOW_DAYS } from "./record";
import type { ConversationConversions, ConversionLine } from "~/lib/ad-conversions";

export type { ConversationConversions, ConversionLine };

/**
 * The conversion events of one of the organisation's conversations, oldest first, and whether
 * "Mark as converted" applies (consent, an ad with a click id entered within the window): one statement
 * (the conversation's page counts its statements).
 */
export async function conversionsOfConversation(organizationId: string, conversationId: string): Promise<ConversationConversions> {
  const rows = await queryRows<{
    can_mark: boolean | null;
    id: string | null;
    event_name: ConversionLine["eventName"];
    value_cents: number | null;
    status: ConversionLine["status"];
    reason: string | null;
    created_at: string | null;
  }>(
    db(),
    sql`select (s.enabled and ad.ctwa_clid is not null and v.ad_entry_at > now() - make_interval(days => ${CONVERSION_WINDOW_DAYS})) as can_mark,
               e.id, e.event_name, e.value_cents, e.status, e.reason, e.created_at::text
        from conversations v
        left join ad_referrals ad on ad.id = v.ad_referral_id
        left join ad_conversion_settings s on s.organization_id = v.organization_id
        left join lateral (select id, event_name, value_cents, status, reason, created_at from ad_conversion_events
                           where organization_id = v.organization_id and conversation_id = v.id order by created_at, id limit 20) e on true
        where v.organization_id = ${organizationId} and v.id = ${conversationId}
        order by e.created_at, e.id`,
  );
  return {
    conversationId,
    canMark: rows[0]?.can_mark === true,
    events: rows.flatMap((r) =>
      r.id
        ? [
            {
              id: r.id,
              eventName: r.event_name,
              valueCents: r.value_cents,
              status: r.status,
              reason: r.reason,
              at: new Date(r.created_at!).toISOString(),
            },
          ]
        : [],
    ),
  };
}
