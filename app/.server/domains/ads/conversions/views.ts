import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { CONVERSION_WINDOW_DAYS } from "./record";
import type { ConversationConversions, ConversionLine } from "~/lib/ad-conversions";

export type { ConversationConversions, ConversionLine };

/** The conversion events of one of the organisation's conversations, oldest first. */
export async function conversionsOfConversation(organizationId: string, conversationId: string): Promise<ConversationConversions> {
  const rows = await queryRows<{
    id: string;
    event_name: ConversionLine["eventName"];
    value_cents: number | null;
    status: ConversionLine["status"];
    reason: string | null;
    created_at: string;
  }>(
    db(),
    sql`select id, event_name, value_cents, status, reason, created_at::text from ad_conversion_events
        where organization_id = ${organizationId} and conversation_id = ${conversationId} order by created_at, id limit 20`,
  );
  const [markable] = await queryRows<{ ok: boolean }>(
    db(),
    sql`select true as ok from conversations v
        join ad_referrals ad on ad.id = v.ad_referral_id and ad.ctwa_clid is not null
        join ad_conversion_settings s on s.organization_id = v.organization_id and s.enabled
        where v.organization_id = ${organizationId} and v.id = ${conversationId}
          and v.ad_entry_at > now() - make_interval(days => ${CONVERSION_WINDOW_DAYS})`,
  );
  return {
    conversationId,
    canMark: markable?.ok === true,
    events: rows.map((r) => ({
      id: r.id,
      eventName: r.event_name,
      valueCents: r.value_cents,
      status: r.status,
      reason: r.reason,
      at: new Date(r.created_at).toISOString(),
    })),
  };
}
