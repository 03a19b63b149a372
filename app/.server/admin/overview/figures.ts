import { sql } from "drizzle-orm";
import { queryRows } from "../../db/client";
import type { PlatformScope } from "../../auth/scope";
import { isTenant, nairobiMonthStart, nairobiMonthStartInstant, nairobiToday } from "../users/tenants";

/** Days the "active" KPI looks back over. */
export const ACTIVE_DAYS = 30;
/** Days of the message volume chart; months of the user growth chart. */
export const VOLUME_DAYS = 30;
export const GROWTH_MONTHS = 12;

const n = (value: unknown) => Number(value ?? 0);

/**
 * The Overview's KPI cards, in one statement (decision 038): tenant organisations; those active in
 * the last 30 days (a member signed in, or a message went or came on one of the last 30 Nairobi
 * days); messages Meta accepted this Nairobi month (the daily rollup); and revenue this Nairobi
 * month: completed payments (M-Pesa, card, paybill, reconciled bank transfers) by when they completed.
 */
export async function overviewKpis(_scope: PlatformScope) {
  const [row] = await queryRows<Record<string, unknown>>(sql`
    with tenants as (select o.id, o.status from organizations o where ${isTenant()})
    select
      (select count(*) from tenants) as organizations,
      (select count(*) from tenants where status = 'active') as active_status,
      (select count(*) from tenants where status = 'pending') as pending,
      (select count(*) from tenants where status = 'suspended') as suspended,
      (select count(*) from tenants t where t.id in (
         select organization_id from organization_message_days where last_day > ${nairobiToday} - ${sql.raw(String(ACTIVE_DAYS))}
         union
         select organization_id from users where last_login_at > now() - make_interval(days => ${sql.raw(String(ACTIVE_DAYS))}))) as active_30,
      (select coalesce(sum(sent), 0) from platform_message_daily where day >= ${nairobiMonthStart}) as messages_month,
      (select coalesce(sum(amount_cents), 0) from payments where status = 'completed' and completed_at >= ${nairobiMonthStartInstant}) as revenue_month`);
  return {
    organizations: n(row?.organizations),
    byStatus: { active: n(row?.active_status), pending: n(row?.pending), suspended: n(row?.suspended) },
    active30: n(row?.active_30),
    messagesThisMonth: n(row?.messages_month),
    revenueThisMonthCents: n(row?.revenue_month),
  };
}

/**
 * MRR, ARPU and churn (decision 038 gives the definitions word for word). ARPU and churn read the
 * last complete Nairobi month, so a month's first days do not halve them.
 */
export async function revenueMetrics(_scope: PlatformScope) {
  const [row] = await queryRows<Record<string, unknown>>(sql`
    with bounds as (
      select (date_trunc('month', now() at time zone 'Africa/Nairobi') - interval '1 month') at time zone 'Africa/Nairobi' as starts,
             ${nairobiMonthStartInstant} as ends,
             to_char(date_trunc('month', now() at time zone 'Africa/Nairobi') - interval '1 month', 'FMMonth YYYY') as label),
    tenants as (select o.* from organizations o where ${isTenant()})
    select b.label,
      (select coalesce(sum(p.monthly_fee_cents), 0) from tenants t
         join billing_plans p on p.code = lower(t.plan_type) and p.billing_type = t.billing_type
         where t.status = 'active' and t.closure_requested_at is null and t.billing_type = 'postpaid') as mrr,
      (select coalesce(sum(amount_cents), 0) from payments
         where status = 'completed' and completed_at >= b.starts and completed_at < b.ends) as month_revenue,
      (select count(*) from tenants t where t.status = 'active' and t.created_at < b.ends) as paying_base,
      (select count(*) from tenants t where t.status <> 'pending' and t.created_at < b.starts
         and (t.suspended_at is null or t.suspended_at >= b.starts)
         and (t.closure_requested_at is null or t.closure_requested_at >= b.starts)) as start_base,
      (select count(*) from tenants t where t.created_at < b.starts
         and ((t.suspended_at >= b.starts and t.suspended_at < b.ends)
           or (t.closure_requested_at >= b.starts and t.closure_requested_at < b.ends))) as churned
    from bounds b`);
  const monthRevenue = n(row?.month_revenue);
  const payingBase = n(row?.paying_base);
  const startBase = n(row?.start_base);
  const churned = n(row?.churned);
  return {
    month: String(row?.label ?? ""),
    mrrCents: n(row?.mrr),
    monthRevenueCents: monthRevenue,
    payingBase,
    arpuCents: payingBase ? Math.round(monthRevenue / payingBase) : null,
    startBase,
    churned,
    churnPercent: startBase ? Math.round((churned / startBase) * 1000) / 10 : null,
  };
}

/** New tenant organisations per Nairobi month, the last 12 months (this one included), oldest first. */
export async function userGrowth(_scope: PlatformScope) {
  const rows = await queryRows<{ month: string; label: string; n: number | string }>(sql`
    with months as (
      select generate_series(date_trunc('month', now() at time zone 'Africa/Nairobi') - make_interval(months => ${sql.raw(String(GROWTH_MONTHS - 1))}),
                             date_trunc('month', now() at time zone 'Africa/Nairobi'), interval '1 month') as month),
    joined as (
      select date_trunc('month', o.created_at at time zone 'Africa/Nairobi') as month, count(*) as n from organizations o
      where ${isTenant()} and o.created_at >= (select min(month) from months) at time zone 'Africa/Nairobi'
      group by 1)
    select to_char(m.month, 'YYYY-MM') as month, to_char(m.month, 'Mon YYYY') as label, coalesce(j.n, 0) as n
    from months m left join joined j on j.month = m.month order by m.month`);
  return rows.map((r) => ({ month: r.month, label: r.label, value: n(r.n) }));
}

/** Messages Meta accepted (sent) and customers' messages received, per Nairobi day, the last 30 days, oldest first. */
export async function messageVolume(_scope: PlatformScope) {
  const rows = await queryRows<{ day: string; label: string; sent: number | string; received: number | string }>(sql`
    with days as (select generate_series(${nairobiToday} - ${sql.raw(String(VOLUME_DAYS - 1))}, ${nairobiToday}, interval '1 day')::date as day),
    totals as (select day, sent, received from platform_message_daily where day > ${nairobiToday} - ${sql.raw(String(VOLUME_DAYS))})
    select d.day::text as day, to_char(d.day, 'FMDD Mon') as label, coalesce(t.sent, 0) as sent, coalesce(t.received, 0) as received
    from days d left join totals t on t.day = d.day order by d.day`);
  return rows.map((r) => ({ day: r.day, label: r.label, sent: n(r.sent), received: n(r.received) }));
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
  }>(sql`
    select id, level, title, details, opened_at from system_alerts where resolved_at is null order by opened_at desc limit ${limit}`);
  return rows.map((r) => ({ id: r.id, level: r.level, title: r.title, details: r.details, openedAt: new Date(r.opened_at).toISOString() }));
}
