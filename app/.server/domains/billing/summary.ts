import { rawQuery } from "../../infrastructure/db/client";
import { periodAt } from "./periods";
import { messagesUsedThisMonthSql } from "./month-usage";
import { USAGE_ROWS } from "./usage-fold";

/**
 * The organisation's billing at a glance: the wallet, the plan and this period's usage against its
 * limit (read from the usage rollup, never the messages), and the next billing date.
 */
export async function walletSummary(organizationId: string, now = new Date()) {
  const period = periodAt(now);
  const [row] = await rawQuery<{
    balance_cents: number | string | null;
    held_cents: number | string | null;
    plan_type: string;
    billing_type: "prepaid" | "postpaid";
    message_limit: number;
    next_plan_type: string | null;
    next_billing_type: string | null;
    next_plan_from: string | null;
    used: number;
    spent: number | string;
  }>(
    `select w.balance_cents, w.held_cents, o.plan_type, o.billing_type, o.message_limit, o.next_plan_type, o.next_billing_type,
            o.next_plan_from::text as next_plan_from,
            ${messagesUsedThisMonthSql({ organization: "o.id", at: "$4::timestamptz" })} as used, coalesce(u.spent, 0) as spent
     from organizations o
     left join wallets w on w.organization_id = o.id
     left join lateral (select sum(amount_cents) as spent from ${USAGE_ROWS} x
                        where organization_id = o.id and day between $2::date and $3::date) u on true
     where o.id = $1`,
    [organizationId, period.start, period.end, now.toISOString()],
  );
  if (!row) throw new Error(`No organisation ${organizationId}`);
  const balanceCents = Number(row.balance_cents ?? 0);
  const heldCents = Number(row.held_cents ?? 0);
  return {
    balanceCents,
    heldCents,
    availableCents: balanceCents - heldCents,
    currency: "KES" as const,
    plan: row.plan_type,
    billingType: row.billing_type,
    nextPlan: row.next_plan_type ? { plan: row.next_plan_type, billingType: row.next_billing_type, from: row.next_plan_from } : null,
    nextBillingDate: period.next,
    usage: {
      messages: row.used,
      limit: row.message_limit,
      // The spec's usage bar stops at 100% (postpaid messages beyond the limit are invoiced as overage).
      percent: row.message_limit > 0 ? Math.min(100, Math.round((row.used / row.message_limit) * 100)) : 0,
      spentCents: Number(row.spent),
      periodStart: period.start,
      periodEnd: period.end,
    },
  };
}
export type WalletSummary = Awaited<ReturnType<typeof walletSummary>>;
