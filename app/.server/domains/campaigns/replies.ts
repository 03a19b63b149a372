import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";

/** A campaign counts a reply when the person writes to the number within 72 hours of its delivery. */
export const REPLY_WINDOW_HOURS = 72;

/**
 * Marks the campaign recipients these inbound messages answer: a message from the person a campaign
 * reached, to the number it came from, after it was sent and within 72 hours of its delivery (the
 * first reply counts), and marks their campaigns' figures out of date.
 */
export async function markCampaignReplies(
  tx: Executor,
  inbound: { organizationId: string; phoneNumberId: string; from: string; sentAt: string }[],
) {
  if (!inbound.length) return;
  // The campaigns the replies count in: their figures out of date (figuresMoved, in the same statement).
  await tx.execute(sql`
    with marked as (
    update campaign_recipients r set replied_at = t.at
    from unnest(${sql.param(inbound.map((m) => m.organizationId))}::uuid[], ${sql.param(inbound.map((m) => m.phoneNumberId))}::text[],
                ${sql.param(inbound.map((m) => m.from))}::text[], ${sql.param(inbound.map((m) => m.sentAt))}::timestamptz[]) as t(o, p, phone, at)
    join messages m on m.phone_number_id = t.p and m.recipient_phone = t.phone and m.accepted_at is not null
                   and m.organization_id = t.o and m.campaign_id is not null
                   -- From the send on (a reply may overtake the delivered status; Meta's times are whole seconds)
                   -- to 72 hours after delivery.
                   and t.at >= date_trunc('second', m.accepted_at)
                   -- Written before it was accepted (an hour's slack for Meta's whole-second times): the months
                   -- after the reply are not read (decision 183).
                   and m.created_at < t.at + interval '1 hour'
                   and t.at < coalesce(m.delivered_at, m.read_at, m.accepted_at) + make_interval(hours => ${REPLY_WINDOW_HOURS})
    where r.message_id = m.id and r.replied_at is null
    returning r.campaign_id)
    update campaigns c set counted_at = null
    where c.id in (select campaign_id from marked) and c.status <> 'sending' and c.counted_at is not null`);
}
