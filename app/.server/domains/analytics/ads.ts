import { sql } from "drizzle-orm";
import { readDb } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { csvRow } from "../activity";
import { m } from "~/paraglide/messages";

/**
 * The Ads tab of Analytics (issue 77): what each Click-to-WhatsApp ad (and boosted post) brought, read
 * from `ad_referrals` (one row per message that came from an ad, decision 154), the messages, the
 * shop's orders and the payment requests; never from anything Meta claims.
 *
 * The rules (docs/features/ads.md, "Analytics by ad"):
 * - An **entry** is a conversation's first arrival from an ad in the period (a customer tapping the
 *   same ad twice is one conversation for it). "Conversations" counts them.
 * - **Answered**: the business answered after the entry (a message from the inbox, an automation or
 *   free-form through the API that Meta accepted; campaigns and templates sent through the API answer
 *   nobody, as in decision 036). The median first response is the middle wait, in minutes.
 * - **Orders** and **payment requests** are credited to the latest ad the conversation came from before
 *   they were made (last touch), when that ad entry is in the period; a request paid later counts as
 *   paid (as the Payments section counts). KES collected is what M-Pesa took for them.
 * - The number filter keeps the ad entries on that business number.
 */

/** Rows shown in the table (the busiest first). */
const TOP_ROWS = 10;

export type AdSourceType = "ad" | "post" | "unknown";

export interface AdFigureRow {
  /** The ad's (or post's) id at Meta, or the source type for the by-type rows. */
  id: string;
  headline: string | null;
  sourceType: AdSourceType | null;
  conversations: number;
  answered: number;
  /** Median minutes from the customer's message to the first answer (one decimal); null when nobody was answered. */
  medianResponseMinutes: number | null;
  orders: number;
  paymentsPaid: number;
  kesCollected: number;
}

export interface AdFigures {
  total: AdFigureRow;
  byAd: AdFigureRow[];
  bySourceType: AdFigureRow[];
}

interface GroupRow {
  g: number | string;
  source_id: string | null;
  source_type: string | null;
  /** The ad's own type (on the by-ad rows, which group by id alone). */
  ad_type: string | null;
  headline: string | null;
  conversations: number | string;
  answered: number | string;
  median_seconds: number | string | null;
  orders: number | string;
  paid: number | string;
  kes: number | string;
}

export interface AdFiguresQuery {
  start: Date;
  end: Date;
  number: string | null;
  /** Rows of the by-ad table: the page's ten, or every one for the CSV and the API. */
  top?: number;
}

function adFiguresQuery(organizationId: string, query: AdFiguresQuery) {
  const start = sql`${query.start.toISOString()}::timestamptz`;
  const end = sql`${query.end.toISOString()}::timestamptz`;
  const onNumber = query.number ? sql`and a.phone_number_id = ${query.number}` : sql``;
  return sql`
    with entries as (
      select distinct on (a.conversation_id, a.source_id) a.conversation_id, a.contact_id, a.phone_number_id, a.source_id, a.source_type,
             a.headline, a.clicked_at
      from ad_referrals a
      where a.organization_id = ${organizationId} and a.conversation_id is not null and a.clicked_at >= ${start} and a.clicked_at < ${end} ${onNumber}
      order by a.conversation_id, a.source_id, a.clicked_at, a.id),
    answered as (
      select e.*, extract(epoch from (r.at - e.clicked_at)) as wait
      from entries e
      left join lateral (
        select m.accepted_at as at from messages m
        where m.contact_id = e.contact_id and m.organization_id = ${organizationId} and m.phone_number_id = e.phone_number_id
          and m.direction = 'outbound' and m.created_at >= e.clicked_at and m.accepted_at is not null
          and (m.source in ('inbox', 'automation') or (m.source = 'api' and m.template_id is null))
        order by m.accepted_at limit 1) r on true),
    made as (
      select 'order' as kind, o.conversation_id, o.received_at as at, false as paid, 0 as kes
      from orders o where o.organization_id = ${organizationId} and o.conversation_id in (select conversation_id from entries)
      union all
      select 'payment', pr.conversation_id, pr.created_at, pr.status = 'paid', coalesce(pr.paid_amount_kes, 0)
      from payment_requests pr
      where pr.organization_id = ${organizationId} and pr.conversation_id in (select conversation_id from entries)),
    credited as (
      select made.kind, made.paid, made.kes, owner.source_id, owner.source_type
      from made
      join lateral (
        select a.source_id, a.source_type, a.clicked_at from ad_referrals a
        where a.organization_id = ${organizationId} and a.conversation_id = made.conversation_id and a.clicked_at <= made.at
        order by a.clicked_at desc, a.id desc limit 1) owner on true
      where owner.clicked_at >= ${start} and owner.clicked_at < ${end}),
    facts as (
      select 'entry' as kind, conversation_id, source_id, source_type, headline, clicked_at, wait, false as paid, 0 as kes from answered
      union all
      select kind, null, source_id, source_type, null, null, null, paid, kes from credited)
    select grouping(source_id, source_type) as g, source_id, source_type, max(source_type) as ad_type,
           (array_agg(headline order by clicked_at desc) filter (where headline is not null))[1] as headline,
           count(distinct conversation_id) as conversations,
           count(distinct conversation_id) filter (where wait is not null) as answered,
           percentile_cont(0.5) within group (order by wait) as median_seconds,
           count(*) filter (where kind = 'order') as orders,
           count(*) filter (where kind = 'payment' and paid) as paid,
           coalesce(sum(kes) filter (where kind = 'payment' and paid), 0) as kes
    from facts group by grouping sets ((), (source_id), (source_type))`;
}

const minutes = (seconds: GroupRow["median_seconds"]) =>
  seconds === null ? null : Math.round((Math.max(0, Number(seconds)) / 60) * 10) / 10;

const sourceTypeOf = (value: string | null): AdSourceType | null =>
  value === "ad" || value === "post" || value === "unknown" ? value : null;

function rowOf(r: GroupRow | undefined, id: string, sourceType: AdSourceType | null): AdFigureRow {
  return {
    id,
    headline: r?.headline ?? null,
    sourceType,
    conversations: Number(r?.conversations ?? 0),
    answered: Number(r?.answered ?? 0),
    medianResponseMinutes: r ? minutes(r.median_seconds) : null,
    orders: Number(r?.orders ?? 0),
    paymentsPaid: Number(r?.paid ?? 0),
    kesCollected: Number(r?.kes ?? 0),
  };
}

const busiestFirst = (a: AdFigureRow, b: AdFigureRow) =>
  b.kesCollected - a.kesCollected || b.conversations - a.conversations || a.id.localeCompare(b.id);

/** The period's figures by ad for one tenant: in all, per ad and per source type (ad, boosted post). */
export async function adFigures(organizationId: string, query: AdFiguresQuery): Promise<AdFigures> {
  const rows = await queryRows<GroupRow>(await readDb(), adFiguresQuery(organizationId, query));
  // grouping(source_id, source_type): 3 the whole period, 1 one ad, 2 one source type.
  const of = (g: number) => rows.filter((r) => Number(r.g) === g);
  const byAd = of(1)
    .filter((r) => r.source_id !== null)
    .map((r) => rowOf(r, r.source_id!, sourceTypeOf(r.ad_type)))
    .sort(busiestFirst)
    .slice(0, query.top ?? TOP_ROWS);
  const bySourceType = of(2)
    .filter((r) => r.source_type !== null)
    .map((r) => ({ ...rowOf(r, r.source_type!, sourceTypeOf(r.source_type)), headline: null }))
    .sort(busiestFirst);
  return { total: { ...rowOf(of(3)[0], "", null), headline: null }, byAd, bySourceType };
}

/** The tab as CSV, in the request's language: the period's totals, then every ad, then every source type. */
export function adsCsv(figures: AdFigures) {
  const header = csvRow([
    m.app_analytics_ads_csv_dimension(),
    m.app_analytics_ads_col_ad_id(),
    m.app_analytics_ads_col_headline(),
    m.app_analytics_ads_col_conversations(),
    m.app_analytics_ads_col_answered(),
    m.app_analytics_ads_col_median(),
    m.app_analytics_ads_col_orders(),
    m.app_analytics_ads_col_paid(),
    m.app_analytics_ads_col_collected(),
  ]);
  const line = (label: string, r: AdFigureRow) =>
    csvRow([
      label,
      r.id,
      r.headline ?? "",
      r.conversations,
      r.answered,
      r.medianResponseMinutes ?? "",
      r.orders,
      r.paymentsPaid,
      r.kesCollected,
    ]);
  return (
    header +
    line(m.app_analytics_ads_csv_total(), figures.total) +
    figures.byAd.map((r) => line(m.app_analytics_ads_csv_ad(), r)).join("") +
    figures.bySourceType.map((r) => line(m.app_analytics_ads_csv_source_type(), r)).join("")
  );
}
