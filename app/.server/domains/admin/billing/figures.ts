import { sql } from "drizzle-orm";
import { readDb } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { nairobiMidnight, periodAt, previousPeriod } from "../../billing";
import { BILLING_PERIODS, type BillingPeriod } from "~/lib/admin-billing";
import { m } from "~/paraglide/messages";

/**
 * The Billing tab's figures. Invoiced, paid, outstanding and overdue count tax invoices (series INV:
 * top-ups, postpaid months, bank transfers; never receipts on account, which the month's invoice
 * already counts, nor credit notes, shown on their own) issued in the period chosen. Revenue by plan
 * is those invoices paid; revenue by method is the money that arrived in the period by each way in
 * (completed payments: M-Pesa Express, the paybill, card, bank transfer).
 */
export { BILLING_PERIODS, type BillingPeriod };

export function parseBillingPeriod(value: string | null): BillingPeriod {
  return value && value in BILLING_PERIODS ? (value as BillingPeriod) : "month";
}

/** The period's bounds as instants ([from, to)); all time has none. */
export function periodBounds(period: BillingPeriod, now = new Date()): { from: Date | null; to: Date | null } {
  const current = periodAt(now);
  if (period === "month") return { from: nairobiMidnight(current.start), to: nairobiMidnight(current.next) };
  if (period === "last-month") {
    const last = previousPeriod(current);
    return { from: nairobiMidnight(last.start), to: nairobiMidnight(current.start) };
  }
  if (period === "12m") {
    let start = current;
    for (let i = 0; i < 11; i++) start = previousPeriod(start);
    return { from: nairobiMidnight(start.start), to: nairobiMidnight(current.next) };
  }
  return { from: null, to: null };
}

export interface BillingTotals {
  invoicedCents: number;
  paidCents: number;
  outstandingCents: number;
  overdueCents: number;
  invoices: number;
  creditedCents: number;
}

const range = (column: ReturnType<typeof sql.raw>, bounds: { from: Date | null; to: Date | null }) =>
  sql`${bounds.from ? sql`and ${column} >= ${bounds.from.toISOString()}` : sql``} ${bounds.to ? sql`and ${column} < ${bounds.to.toISOString()}` : sql``}`;

export async function billingTotals(_scope: PlatformScope, bounds: { from: Date | null; to: Date | null }): Promise<BillingTotals> {
  const [row] = await queryRows<Record<string, string | number | null>>(
    await readDb(),
    sql`
    select coalesce(sum(total_cents) filter (where series = 'INV' and status <> 'void'), 0)::bigint as invoiced,
           coalesce(sum(total_cents) filter (where series = 'INV' and status = 'paid'), 0)::bigint as paid,
           coalesce(sum(total_cents) filter (where series = 'INV' and status in ('pending', 'overdue', 'disputed')), 0)::bigint as outstanding,
           coalesce(sum(total_cents) filter (where series = 'INV' and status = 'overdue'), 0)::bigint as overdue,
           count(*) filter (where series = 'INV')::int as invoices,
           coalesce(sum(total_cents) filter (where series = 'CRN'), 0)::bigint as credited
    from invoices where series in ('INV', 'CRN') ${range(sql.raw("issued_at"), bounds)}`,
  );
  return {
    invoicedCents: Number(row?.invoiced ?? 0),
    paidCents: Number(row?.paid ?? 0),
    outstandingCents: Number(row?.outstanding ?? 0),
    overdueCents: Number(row?.overdue ?? 0),
    invoices: Number(row?.invoices ?? 0),
    creditedCents: Number(row?.credited ?? 0),
  };
}

export interface RevenueLine {
  key: string;
  label: string;
  count: number;
  amountCents: number;
}

/** Each way money comes in, in the order the table lists them; its name in the request's language. */
export const METHOD_LABELS: Readonly<Record<string, string>> = {
  mpesa: "M-Pesa Express",
  c2b: "M-Pesa paybill (C2B)",
  get card() {
    return m.admin_billing_method_card();
  },
  get bank() {
    return m.admin_billing_method_bank();
  },
};

/** Paid tax invoices by the plan they were issued on, largest first. */
export async function revenueByPlan(_scope: PlatformScope, bounds: { from: Date | null; to: Date | null }): Promise<RevenueLine[]> {
  const rows = await queryRows<{ plan: string | null; n: number; amount: string | number }>(
    await readDb(),
    sql`
    select plan_type as plan, count(*)::int as n, sum(total_cents)::bigint as amount
    from invoices where series = 'INV' and status = 'paid' ${range(sql.raw("issued_at"), bounds)}
    group by plan_type order by amount desc`,
  );
  return rows.map((r) => ({
    key: r.plan ?? "none",
    label: r.plan ?? m.admin_billing_no_plan(),
    count: Number(r.n),
    amountCents: Number(r.amount),
  }));
}

/** Money received in the period by each way in (every method listed, zero where none came). */
export async function revenueByMethod(_scope: PlatformScope, bounds: { from: Date | null; to: Date | null }): Promise<RevenueLine[]> {
  const rows = await queryRows<{ method: string; n: number; amount: string | number }>(
    await readDb(),
    sql`
    select method, count(*)::int as n, sum(amount_cents)::bigint as amount
    from payments where status = 'completed' ${range(sql.raw("completed_at"), bounds)}
    group by method`,
  );
  const found = new Map(rows.map((r) => [r.method, r]));
  return Object.entries(METHOD_LABELS).map(([key, label]) => ({
    key,
    label,
    count: Number(found.get(key)?.n ?? 0),
    amountCents: Number(found.get(key)?.amount ?? 0),
  }));
}
