import { sql } from "drizzle-orm";
import { readDb } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { csvRow } from "../activity";
import { rate } from "~/lib/analytics";
import { m } from "~/paraglide/messages";

/**
 * The Payments section of Analytics (issue 76): the payment requests made in a period, what became of
 * them, and the shillings collected, in all and by agent, by flow and by campaign. Read from
 * `payment_requests` itself (the requests of a period are a few thousand at most, read by the
 * organisation's created_at index), never from the messages.
 *
 * The rules (docs/features/payment-requests.md, "Analytics"):
 * - A request counts in the period it was **made** in (created_at); "paid" is how many of those were
 *   paid, whenever they were, so the conversion rate (paid ÷ requested) is never above 100%.
 * - KES collected is what M-Pesa took (paid_amount_kes): a request paid a different amount counts at
 *   what was paid, and is counted again under "amount differs" for the team to look at.
 * - By agent: the member who made it (created_by); requests by flows, automations, integrations and
 *   the API have no agent. By flow: requests whose source is a flow, under that flow's name.
 * - By campaign: the last campaign the customer replied to (campaign_recipients.replied_at, the
 *   campaigns' own reply attribution, campaigns/replies.ts) at most 72 hours (REPLY_WINDOW_HOURS)
 *   before the request was made. A request without such a reply has no campaign.
 * - The number filter keeps the requests whose conversation is on that business number.
 */

/** How far back a campaign reply still earns a payment request: the campaigns' own reply window. */
export const CAMPAIGN_ATTRIBUTION_HOURS = 72;
/** Rows shown in each table (the busiest first). */
const TOP_ROWS = 10;

export interface PaymentFigureRow {
  id: string;
  name: string;
  requested: number;
  paid: number;
  /** Percent with one decimal, null when nothing was requested. */
  conversion: number | null;
  kesCollected: number;
}

export interface PaymentFigures {
  requested: number;
  paid: number;
  conversion: number | null;
  /** Whole shillings M-Pesa took for the period's paid requests. */
  kesCollected: number;
  /** Paid requests whose amount differs from the one asked (counted at what was paid). */
  amountMismatches: number;
  byAgent: PaymentFigureRow[];
  byFlow: PaymentFigureRow[];
  byCampaign: PaymentFigureRow[];
}

interface GroupRow {
  dimension: "all" | "agent" | "flow" | "campaign";
  id: string | null;
  name: string | null;
  requested: string | number;
  paid: string | number;
  kes: string | number;
  mismatched: string | number;
}

function paymentFiguresQuery(organizationId: string, range: { start: Date; end: Date }, number: string | null) {
  const onNumber = number
    ? sql`and exists (select 1 from conversations c where c.id = pr.conversation_id and c.organization_id = pr.organization_id
                        and c.phone_number_id = ${number})`
    : sql``;
  return sql`
    with reqs as (
      select pr.status, pr.paid_amount_kes, pr.amount_mismatch, pr.created_by::text as agent_id,
             case when pr.source = 'flow' then pr.source_id end as flow_id, attributed.campaign_id::text as campaign_id
      from payment_requests pr
      left join lateral (
        select r.campaign_id from campaign_recipients r
        where r.organization_id = pr.organization_id and r.contact_id = pr.contact_id and r.replied_at is not null
          and r.replied_at <= pr.created_at
          and r.replied_at > pr.created_at - make_interval(hours => ${CAMPAIGN_ATTRIBUTION_HOURS})
        order by r.replied_at desc, r.id desc limit 1) attributed on true
      where pr.organization_id = ${organizationId} and pr.created_at >= ${range.start.toISOString()}::timestamptz
        and pr.created_at < ${range.end.toISOString()}::timestamptz ${onNumber}),
    grouped as (
      select grouping(agent_id, flow_id, campaign_id) as g, agent_id, flow_id, campaign_id, count(*) as requested,
             count(*) filter (where status = 'paid') as paid,
             coalesce(sum(paid_amount_kes) filter (where status = 'paid'), 0) as kes,
             count(*) filter (where status = 'paid' and amount_mismatch) as mismatched
      from reqs group by grouping sets ((), (agent_id), (flow_id), (campaign_id)))
    select case g when 7 then 'all' when 3 then 'agent' when 5 then 'flow' else 'campaign' end as dimension,
           coalesce(agent_id, flow_id, campaign_id) as id,
           coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email, f.name, cp.name) as name,
           requested, paid, kes, mismatched
    from grouped
    left join users u on g = 3 and u.id::text = agent_id and u.organization_id = ${organizationId}
    left join flows f on g = 5 and f.id::text = flow_id and f.organization_id = ${organizationId}
    left join campaigns cp on g = 6 and cp.id::text = campaign_id and cp.organization_id = ${organizationId}
    where g = 7 or coalesce(agent_id, flow_id, campaign_id) is not null`;
}

const rowOf = (r: GroupRow, gone: () => string): PaymentFigureRow => ({
  id: r.id ?? "",
  name: r.name ?? gone(),
  requested: Number(r.requested),
  paid: Number(r.paid),
  conversion: rate(Number(r.paid), Number(r.requested)),
  kesCollected: Number(r.kes),
});

const busiestFirst = (a: PaymentFigureRow, b: PaymentFigureRow) =>
  b.kesCollected - a.kesCollected || b.requested - a.requested || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

/** What the figures are read for: the period, the number filter, and how many rows each table keeps. */
export interface PaymentFiguresQuery {
  start: Date;
  end: Date;
  number: string | null;
  /** Names a row whose member, flow or campaign was deleted since (its requests still count). */
  goneName: () => string;
  /** Rows per table: the page's ten, or every one for the CSV. */
  top?: number;
}

/** The period's payment figures for one tenant. */
export async function paymentFigures(organizationId: string, query: PaymentFiguresQuery): Promise<PaymentFigures> {
  const rows = await queryRows<GroupRow>(await readDb(), paymentFiguresQuery(organizationId, query, query.number));
  const all = rows.find((r) => r.dimension === "all");
  const table = (dimension: GroupRow["dimension"]) =>
    rows
      .filter((r) => r.dimension === dimension)
      .map((r) => rowOf(r, query.goneName))
      .sort(busiestFirst)
      .slice(0, query.top ?? TOP_ROWS);
  const requested = Number(all?.requested ?? 0);
  const paid = Number(all?.paid ?? 0);
  return {
    requested,
    paid,
    conversion: rate(paid, requested),
    kesCollected: Number(all?.kes ?? 0),
    amountMismatches: Number(all?.mismatched ?? 0),
    byAgent: table("agent"),
    byFlow: table("flow"),
    byCampaign: table("campaign"),
  };
}

/**
 * The section as CSV, in the request's language: the period's totals, then a row per agent, flow and
 * campaign (every one, not only the ten the page shows). Names are the tenant's own words, so every
 * cell goes through csvRow (quoted, a formula-like cell made text).
 */
export function paymentsCsv(figures: PaymentFigures) {
  const header = csvRow([
    m.app_analytics_csv_payments_dimension(),
    m.app_analytics_csv_payments_name(),
    m.app_analytics_payments_col_requested(),
    m.app_analytics_payments_col_paid(),
    m.app_analytics_payments_col_conversion(),
    m.app_analytics_payments_col_collected(),
    m.app_analytics_csv_payments_mismatched(),
  ]);
  const total = csvRow([
    m.app_analytics_csv_payments_total(),
    "",
    figures.requested,
    figures.paid,
    figures.conversion ?? "",
    figures.kesCollected,
    figures.amountMismatches,
  ]);
  const rows = (label: string, list: PaymentFigureRow[]) =>
    list.map((r) => csvRow([label, r.name, r.requested, r.paid, r.conversion ?? "", r.kesCollected, ""])).join("");
  return (
    header +
    total +
    rows(m.app_analytics_payments_col_agent(), figures.byAgent) +
    rows(m.app_analytics_payments_col_flow(), figures.byFlow) +
    rows(m.app_analytics_payments_col_campaign(), figures.byCampaign)
  );
}
