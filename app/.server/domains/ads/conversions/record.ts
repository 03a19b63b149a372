import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { conversionsEnabled } from "./consent";
import { refuseConversion } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * Conversion events (issue 77, decision 156) are written in the transaction that records their source
 * (a paid payment request, a paid order, a "Mark as converted"), into the outbox `ad_conversion_events`,
 * once per source (its idempotency key), and only when the organisation consented and the
 * conversation came from an ad with a click id within the attribution window. A job sends them (send.ts).
 */
export const CONVERSIONS_SEND_QUEUE = "ads.conversions.send";
/** Meta takes events up to 7 days old; a conversion counts for an ad entered at most this long before it. */
export const CONVERSION_WINDOW_DAYS = 7;

/** A payment request that closed, as payments announces it (structurally: ads sits below payments). */
export interface ClosedRequestLike {
  organizationId: string;
  requestId: string;
  outcome: "paid" | "expired" | "cancelled";
}

export interface ConversionInput {
  organizationId: string;
  conversationId: string;
  eventName: "LeadSubmitted" | "Purchase";
  valueCents: number | null;
  source: "payment_request" | "order" | "manual" | "tag" | "flow_end";
  sourceId: string | null;
  idempotencyKey: string;
  /** When it happened (ISO); now when absent. */
  eventTime?: string;
  createdBy?: string | null;
}

/**
 * A lead's key (decision 158): one LeadSubmitted per ad entry whatever marked it (a converting tag, a
 * flow's end, "Mark as converted"), so concurrent or repeated marks are one event and one lead at Meta.
 */
export const leadKey = (adReferralId: string) => `lead:ad:${adReferralId}`;

/** Queues the event when it is due one; answers its id, or null (no consent, no ad, or already queued). */
export async function queueConversion(tx: Executor, input: ConversionInput): Promise<string | null> {
  if (!(await conversionsEnabled(tx, input.organizationId))) return null;
  const at = input.eventTime ?? new Date().toISOString();
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into ad_conversion_events (organization_id, conversation_id, contact_id, ad_referral_id, ctwa_clid, waba_id, event_name,
                                      value_cents, currency, source, source_id, idempotency_key, event_time, created_by)
    select v.organization_id, v.id, v.contact_id, ad.id, ad.ctwa_clid, a.waba_id, ${input.eventName}, ${input.valueCents},
           ${input.valueCents === null ? null : "KES"}, ${input.source}, ${input.sourceId}, ${input.idempotencyKey}, ${at}::timestamptz,
           ${input.createdBy ?? null}::uuid
    from conversations v
    join ad_referrals ad on ad.id = v.ad_referral_id and ad.organization_id = v.organization_id
    join lateral (select w.waba_id from whatsapp_phone_numbers p join whatsapp_accounts w on w.id = p.account_id
                  where p.organization_id = v.organization_id and p.phone_number_id = v.phone_number_id
                  order by p.disconnected_at nulls first limit 1) a on true
    where v.organization_id = ${input.organizationId} and v.id = ${input.conversationId} and ad.ctwa_clid is not null
      and (${input.eventName} <> 'LeadSubmitted' or not exists (
            select 1 from ad_conversion_events e where e.organization_id = v.organization_id and e.ad_referral_id = ad.id
                                                 and e.event_name = 'LeadSubmitted'))
      and v.ad_entry_at <= ${at}::timestamptz + interval '1 minute'
      and v.ad_entry_at > ${at}::timestamptz - make_interval(days => ${CONVERSION_WINDOW_DAYS})
    on conflict (organization_id, idempotency_key) do nothing
    returning id`,
  );
  if (!row) return null;
  await enqueueJob(CONVERSIONS_SEND_QUEUE, {}, { executor: tx, uniqueKey: CONVERSIONS_SEND_QUEUE });
  return row.id;
}

/**
 * A payment request closed paid (payments announces it in the transaction that records the payment):
 * a Purchase of what M-Pesa took, once per request, or once per order when the request asked for one.
 */
export async function conversionOnRequestClosed(tx: Executor, closed: ClosedRequestLike) {
  if (closed.outcome !== "paid") return;
  const [request] = await queryRows<{
    conversation_id: string | null;
    amount_kes: number;
    paid_amount_kes: number | null;
    source: string;
    source_id: string | null;
    paid_at: string | null;
  }>(
    tx,
    sql`select conversation_id, amount_kes, paid_amount_kes, source, source_id, paid_at::text from payment_requests
        where organization_id = ${closed.organizationId} and id = ${closed.requestId}`,
  );
  if (!request?.conversation_id) return;
  const order = request.source === "order" && request.source_id !== null;
  await queueConversion(tx, {
    organizationId: closed.organizationId,
    conversationId: request.conversation_id,
    eventName: "Purchase",
    valueCents: (request.paid_amount_kes ?? request.amount_kes) * 100,
    source: order ? "order" : "payment_request",
    sourceId: order ? request.source_id : closed.requestId,
    idempotencyKey: order ? `purchase:order:${request.source_id}` : `purchase:payment_request:${closed.requestId}`,
    eventTime: request.paid_at ? new Date(request.paid_at).toISOString() : undefined,
  });
}

/**
 * "Mark as converted" in the inbox: a LeadSubmitted for the ad the conversation came from (one per ad
 * entry: a second click changes nothing). Answers whether a new event was queued.
 */
export async function markConverted(actor: { organizationId: string; userId: string }, conversationId: string) {
  return db().transaction(async (tx) => {
    const [conversation] = await queryRows<{ ad_referral_id: string | null }>(
      tx,
      sql`select ad_referral_id from conversations where organization_id = ${actor.organizationId} and id = ${conversationId}`,
    );
    if (!conversation) throw refuseConversion(404, "not_found", m.inbox_conversation_not_found());
    if (!(await conversionsEnabled(tx, actor.organizationId)))
      throw refuseConversion(409, "no_consent", m.ads_conversion_refusal_consent());
    if (!conversation.ad_referral_id) throw refuseConversion(409, "no_ad", m.ads_conversion_refusal_no_ad());
    const key = leadKey(conversation.ad_referral_id);
    const id = await queueConversion(tx, {
      organizationId: actor.organizationId,
      conversationId,
      eventName: "LeadSubmitted",
      valueCents: null,
      source: "manual",
      sourceId: conversationId,
      idempotencyKey: key,
      createdBy: actor.userId,
    });
    // Nothing written: already a lead of this entry (perhaps by a post at the same moment, which the
    // unique key made wait), or no longer one to send.
    if (!id && (await leadOfEntry(tx, actor.organizationId, conversation.ad_referral_id))) return false;
    if (!id) throw refuseConversion(409, "no_ad", m.ads_conversion_refusal_no_ad());
    return true;
  });
}

/** Whether the ad entry already has its lead (an older "Mark as converted" had its own key). */
async function leadOfEntry(tx: Executor, organizationId: string, adReferralId: string) {
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`select id from ad_conversion_events
        where organization_id = ${organizationId} and ad_referral_id = ${adReferralId} and event_name = 'LeadSubmitted' limit 1`,
  );
  return !!row;
}

/**
 * A flow reached an end step marked "counts as a conversion" (decision 158), in the turn's
 * transaction: the conversation's ad entry's lead, once.
 */
export async function conversionOnFlowEnd(tx: Executor, end: { organizationId: string; conversationId: string; sessionId: string }) {
  const [conversation] = await queryRows<{ ad_referral_id: string | null }>(
    tx,
    sql`select ad_referral_id from conversations where organization_id = ${end.organizationId} and id = ${end.conversationId}`,
  );
  if (!conversation?.ad_referral_id) return null;
  return queueConversion(tx, {
    organizationId: end.organizationId,
    conversationId: end.conversationId,
    eventName: "LeadSubmitted",
    valueCents: null,
    source: "flow_end",
    sourceId: end.sessionId,
    idempotencyKey: leadKey(conversation.ad_referral_id),
  });
}
