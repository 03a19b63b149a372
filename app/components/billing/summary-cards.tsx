import { Link } from "~/components/ui/link";
import type { BillingPageData } from "~/.server/domains/billing/page";
import { Card, CardHeader } from "~/components/ui/card";
import { dialogHref } from "~/lib/dialog-href";
import { CalendarClock, Gauge } from "~/components/ui/icons";
import { ProgressBar } from "~/components/ui/progress-bar";
import { BILLING_TYPE_WORDS, longDate, planPriceWords, planWords, usageWords } from "~/lib/billing-words";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

interface BillingSummaryProps {
  summary: BillingPageData["summary"];
  plans: BillingPageData["plans"];
  canManage: boolean;
  searchParams: URLSearchParams;
}

/** The plan, the wallet, the next billing date and this period's usage, side by side. */
export function BillingSummaryCards({ summary, plans, canManage, searchParams }: BillingSummaryProps) {
  const currentPlan = plans.find((p) => p.name.toLowerCase() === summary.plan.toLowerCase() && p.billingType === summary.billingType);
  return (
    <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-4">
      <Card aria-labelledby="plan-title">
        <CardHeader id="plan-title" title={m.billing_plan()} />
        <p className="mt-2 text-xl font-bold text-slate-900" data-testid="billing-plan">
          {summary.plan} · {BILLING_TYPE_WORDS[summary.billingType] ?? summary.billingType}
        </p>
        {currentPlan ? <p className="mt-1 text-sm text-slate-600">{planPriceWords(currentPlan)}</p> : null}
        {summary.nextPlan ? (
          <p className="mt-2 text-sm font-medium text-amber-800" data-testid="billing-next-plan">
            {m.billing_next_plan_from({
              plan: planWords(summary.nextPlan.plan, summary.nextPlan.billingType),
              date: longDate(summary.nextPlan.from ?? summary.nextBillingDate),
            })}
          </p>
        ) : null}
        {canManage ? (
          <Link
            to={dialogHref(searchParams, "plan")}
            preventScrollReset
            className="mt-3 inline-block text-sm font-medium text-brand-700 hover:underline"
          >
            {m.billing_change_plan()}
          </Link>
        ) : null}
      </Card>
      <Card aria-labelledby="wallet-title">
        <CardHeader id="wallet-title" title={m.billing_wallet_balance()} />
        <p className="mt-2 text-xl font-bold text-slate-900" data-testid="billing-balance">
          {formatKes(summary.balanceCents)}
        </p>
        {summary.heldCents > 0 ? (
          <p className="mt-1 text-sm text-slate-600">
            {m.billing_wallet_held({ held: formatKes(summary.heldCents), available: formatKes(summary.availableCents) })}
          </p>
        ) : (
          <p className="mt-1 text-sm text-slate-600">
            {summary.billingType === "prepaid" ? m.billing_wallet_prepaid_note() : m.billing_wallet_postpaid_note()}
          </p>
        )}
      </Card>
      <Card aria-labelledby="next-billing-title">
        <div className="flex items-center justify-between">
          <CardHeader id="next-billing-title" title={m.billing_next_billing_date()} />
          <CalendarClock className="size-5 text-brand-600" aria-hidden />
        </div>
        <p className="mt-2 text-xl font-bold text-slate-900">{longDate(summary.nextBillingDate)}</p>
        <p className="mt-1 text-sm text-slate-600">
          {m.billing_this_period({ start: longDate(summary.usage.periodStart), end: longDate(summary.usage.periodEnd) })}
        </p>
      </Card>
      <Card aria-labelledby="usage-title">
        <div className="flex items-center justify-between">
          <CardHeader id="usage-title" title={m.billing_usage_title()} />
          <Gauge className="size-5 text-brand-600" aria-hidden />
        </div>
        <div className="mt-3">
          <ProgressBar
            label={usageWords(summary.usage.messages, summary.usage.limit)}
            value={summary.usage.percent}
            valueText={`${summary.usage.percent}%`}
            tone={summary.usage.percent >= 100 ? "danger" : summary.usage.percent >= 80 ? "warning" : "brand"}
          />
        </div>
        <p className="mt-2 text-sm text-slate-600">{m.billing_spent_this_period({ amount: formatKes(summary.usage.spentCents) })}</p>
      </Card>
    </div>
  );
}
