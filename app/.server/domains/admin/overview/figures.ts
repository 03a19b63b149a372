import { alertInWords } from "../system/alerts";
import { USAGE_ROWS } from "../../billing";
import { sql } from "drizzle-orm";
import { db, readDb } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { nairobiMonthStart, nairobiMonthStartInstant, nairobiToday } from "../users/tenants";
import { baseLocale, getLocale } from "~/paraglide/runtime";
import { dateTimeFormat, formatDateWords, intlLocale } from "~/lib/intl";

/** Days the "active" KPI looks back over. */
export const ACTIVE_DAYS = 30;
/** Days of the message volume chart (31: this month's days are always all on it); months of the user growth chart. */
export const VOLUME_DAYS = 31;
export const GROWTH_MONTHS = 12;

const n = (value: unknown) => Number(value ?? 0);

/**
 * A month ("2026-11") or a day ("2026-11-05") in the request's language: English keeps the database's
 * own words ("November 2026", "Nov 2026", "5 Nov"); Swahili and French are written by `Intl`.
 */
function calendarWords(date: string, english: string, options: Intl.DateTimeFormatOptions) {
  if (getLocale() === baseLocale) return english;
  const at = new Date(`${date.length === 7 ? `${date}-01` : date}T12:00:00Z`);
  return Number.isNaN(at.getTime()) ? english : formatDateWords(dateTimeFormat(intlLocale(), { ...options, timeZone: "UTC" }), at);
}

export interface PlatformOverview {
  kpis: {
    organizations: number;
    byStatus: { active: number; pending: number; suspended: number };
    active30: number;
    messagesThisMonth: number;
    revenueThisMonthCents: number;
  };
  metrics: {
    month: string;
    mrrCents: number;
    monthRevenueCents: number;
    payingBase: number;
    arpuCents: number | null;
    startBase: number;
    churned: number;
    churnPercent: number | null;
  };
  growth: { month: string; label: string; value: number }[];
  /** The message volume chart: messageVolume's days, whose bars since the 1st add up to kpis.messagesThisMonth. */
  volume: { day: string; label: string; sent: number; thisMonth: boolean }[];
}

/**
 * The Overview's KPI cards, revenue metrics and user growth, in one statement that reads each
 * organisation once (decision 038 defines every figure):
 * - KPIs: tenant organisations; those active in the last 30 days (a member signed in, or a message
 *   went or came on one of the last 30 Nairobi days); revenue this Nairobi month, completed payments (M-Pesa, card, paybill, reconciled
 *   bank transfers) by when they completed.
 * - MRR, ARPU and churn: ARPU and churn read the last complete Nairobi month, so a month's first
 *   days do not halve them.
 * - Growth: new tenant organisations per Nairobi month, the last 12 months (this one included).
 * A tenant is an organisation with no platform administrator among its members (isTenant), found
 * here in the same pass over users that finds each organisation's last sign-in.
 * "Messages this month" is messageVolume's (one statement for the card and its chart).
 */
export async function platformOverview(scope: PlatformScope): Promise<PlatformOverview> {
  const database = await readDb();
  const [[row], volume] = await Promise.all([
    queryRows<Record<string, unknown>>(
      database,
      sql`
    with bounds as (
      select (date_trunc('month', now() at time zone 'Africa/Nairobi') - interval '1 month') at time zone 'Africa/Nairobi' as starts,
             ${nairobiMonthStartInstant} as ends,
             to_char(date_trunc('month', now() at time zone 'Africa/Nairobi') - interval '1 month', 'FMMonth YYYY') as label,
             now() - make_interval(days => ${sql.raw(String(ACTIVE_DAYS))}) as active_since,
             ${nairobiToday} - ${sql.raw(String(ACTIVE_DAYS))} as active_after_day,
             date_trunc('month', now() at time zone 'Africa/Nairobi') - make_interval(months => ${sql.raw(String(GROWTH_MONTHS - 1))}) as growth_from),
    members as (
      select organization_id, max(last_login_at) as last_login, bool_or(usertype = 'admin') as platform
      from users group by organization_id),
    tenants as materialized (
      select o.status, o.created_at, o.suspended_at, o.closure_requested_at, o.billing_type, o.plan_type,
             coalesce(d.last_day > b.active_after_day, false) or coalesce(m.last_login > b.active_since, false) as active_30
      from organizations o cross join bounds b
      left join members m on m.organization_id = o.id
      left join organization_message_days d on d.organization_id = o.id
      where not coalesce(m.platform, false)),
    growth as (
      select date_trunc('month', t.created_at at time zone 'Africa/Nairobi') as month, count(*) as n
      from tenants t cross join bounds b where t.created_at >= b.growth_from at time zone 'Africa/Nairobi' group by 1)
    select b.label,
      count(t.created_at) as organizations,
      count(*) filter (where t.status = 'active') as active_status,
      count(*) filter (where t.status = 'pending') as pending,
      count(*) filter (where t.status = 'suspended') as suspended,
      count(*) filter (where t.active_30) as active_30,
      coalesce(sum(p.monthly_fee_cents) filter (
        where t.status = 'active' and t.closure_requested_at is null and t.billing_type = 'postpaid'), 0) as mrr,
      count(*) filter (where t.status = 'active' and t.created_at < b.ends) as paying_base,
      count(*) filter (where t.status <> 'pending' and t.created_at < b.starts
        and (t.suspended_at is null or t.suspended_at >= b.starts)
        and (t.closure_requested_at is null or t.closure_requested_at >= b.starts)) as start_base,
      count(*) filter (where t.created_at < b.starts
        and ((t.suspended_at >= b.starts and t.suspended_at < b.ends)
          or (t.closure_requested_at >= b.starts and t.closure_requested_at < b.ends))) as churned,
      (select coalesce(sum(amount_cents), 0) from payments
         where status = 'completed' and completed_at >= ${nairobiMonthStartInstant}) as revenue_month,
      (select coalesce(sum(amount_cents), 0) from payments
         where status = 'completed' and completed_at >= b.starts and completed_at < b.ends) as month_revenue,
      (select json_agg(json_build_array(to_char(m.month, 'YYYY-MM'), to_char(m.month, 'Mon YYYY'), coalesce(g.n, 0)) order by m.month)
         from generate_series(b.growth_from, date_trunc('month', now() at time zone 'Africa/Nairobi'), interval '1 month') as m(month)
         left join growth g on g.month = m.month) as growth
    from bounds b
    left join tenants t on true
    left join billing_plans p on p.code = lower(t.plan_type) and p.billing_type = t.billing_type
    group by b.label, b.starts, b.ends, b.growth_from`,
    ),
    messageVolume(scope),
  ]);
  const monthRevenue = n(row?.month_revenue);
  const payingBase = n(row?.paying_base);
  const startBase = n(row?.start_base);
  const churned = n(row?.churned);
  const growth = (typeof row?.growth === "string" ? JSON.parse(row.growth) : (row?.growth ?? [])) as [string, string, number | string][];
  // The growth chart's months end with this one: the one before it is the metrics' last complete month.
  const metricsMonth = growth.at(-2)?.[0];
  return {
    kpis: {
      organizations: n(row?.organizations),
      byStatus: { active: n(row?.active_status), pending: n(row?.pending), suspended: n(row?.suspended) },
      active30: n(row?.active_30),
      messagesThisMonth: volume.thisMonth,
      revenueThisMonthCents: n(row?.revenue_month),
    },
    metrics: {
      month: metricsMonth
        ? calendarWords(metricsMonth, String(row?.label ?? ""), { month: "long", year: "numeric" })
        : String(row?.label ?? ""),
      mrrCents: n(row?.mrr),
      monthRevenueCents: monthRevenue,
      payingBase,
      arpuCents: payingBase ? Math.round(monthRevenue / payingBase) : null,
      startBase,
      churned,
      churnPercent: startBase ? Math.round((churned / startBase) * 1000) / 10 : null,
    },
    volume: volume.days,
    growth: growth.map(([month, label, value]) => ({
      month,
      label: calendarWords(month, label, { month: "short", year: "numeric" }),
      value: n(value),
    })),
  };
}

/**
 * "Messages this month" on the Overview, its chart and (an account's share) the WhatsApp tab: the
 * template messages tenants sent that Meta accepted and that count against their plans (charged to a
 * prepaid wallet or counted for a postpaid invoice; taken back when Meta fails one after accepting
 * it), by the Africa/Nairobi day Meta accepted them, as `billing_usage_daily` keeps them (decision 051).
 * Received messages, free replies and SMS (priced per part on their own line, issue 77) do not count. One statement answers the chart's days (the last
 * VOLUME_DAYS Nairobi days, oldest first, so always every day of this month) and the month's total,
 * the sum of the same rows from the 1st: the card is the sum of the chart's bars since the 1st.
 */
export async function messageVolume(_scope: PlatformScope) {
  const rows = await queryRows<{ day: string; label: string; sent: number | string; this_month: boolean }>(
    await readDb(),
    sql`
    with days as (select generate_series(${nairobiToday} - ${sql.raw(String(VOLUME_DAYS - 1))}, ${nairobiToday}, interval '1 day')::date as day),
    totals as (
      select u.day, sum(u.messages) as sent from ${sql.raw(USAGE_ROWS)} u
      where u.day > ${nairobiToday} - ${sql.raw(String(VOLUME_DAYS))} and u.day <= ${nairobiToday} and u.category <> 'sms'
      group by u.day)
    select d.day::text as day, to_char(d.day, 'FMDD Mon') as label, coalesce(t.sent, 0) as sent,
           d.day >= ${nairobiMonthStart} as this_month
    from days d left join totals t on t.day = d.day order by d.day`,
  );
  const days = rows.map((r) => ({
    day: r.day,
    label: calendarWords(r.day, r.label, { day: "numeric", month: "short" }),
    sent: n(r.sent),
    thisMonth: r.this_month === true || String(r.this_month) === "true",
  }));
  return { days, thisMonth: days.filter((d) => d.thisMonth).reduce((sum, d) => sum + d.sent, 0) };
}

export interface OpenAlert {
  id: string;
  level: "warning" | "error";
  title: string;
  details: string | null;
  openedAt: string;
}

/** The open system alerts (the System tab's rules raise and resolve them), newest first. */
export async function openSystemAlerts(_scope: PlatformScope, limit = 10): Promise<OpenAlert[]> {
  const rows = await queryRows<{
    id: string;
    level: OpenAlert["level"];
    title: string;
    details: string | null;
    opened_at: string | Date;
  }>(
    db(),
    sql`
    select id, level, title, details, opened_at from system_alerts where resolved_at is null order by opened_at desc nulls last limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    level: r.level,
    title: alertInWords(r.title),
    details: r.details === null ? null : alertInWords(r.details),
    openedAt: new Date(r.opened_at).toISOString(),
  }));
}
