import type { PermissionHandle } from "~/lib/permissions";
import { Form, href, useSearchParams } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/billing";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { billingTotals, parseBillingPeriod, periodBounds, revenueByMethod, revenueByPlan } from "~/.server/domains/admin/billing/figures";
import { adminInvoicePage, parseInvoiceFilters } from "~/.server/domains/admin/billing/invoice-table";
import { listDisputes } from "~/.server/domains/admin/billing/disputes";
import { unreconciledTransfers } from "~/.server/domains/admin/billing/reconciliation";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Pager, pagerOrder, Table } from "~/components/ui/table";
import { disputeColumns, invoiceColumns, link, RevenueTable } from "~/components/admin/billing/billing-tables";
import { StatCard } from "~/components/ui/stat-card";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { AlertTriangle, CheckCircle2, Clock, Wallet } from "~/components/ui/icons";
import { formatInvoiceDate, formatKes } from "~/lib/invoice";
import { BILLING_PERIODS } from "~/lib/admin-billing";
import { INVOICE_STATUS_BADGES } from "~/components/billing/invoice-history";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";
import { formatNumber } from "~/lib/dates";
import { byCount } from "~/lib/intl";

// Money: the console's owners and finance staff (issue 74, decision 112); 404 to support staff.
export const handle: PermissionHandle = { permission: "platform:money" };

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_tab_billing() }) }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const params = args.url.searchParams;
  const period = parseBillingPeriod(params.get("period"));
  const bounds = periodBounds(period);
  const filters = parseInvoiceFilters(params);
  const [totals, byPlan, byMethod, invoices, openDisputes, resolvedDisputes, unreconciled] = await Promise.all([
    billingTotals(scope, bounds),
    revenueByPlan(scope, bounds),
    revenueByMethod(scope, bounds),
    adminInvoicePage(scope, filters, { after: params.get("after"), before: params.get("before") }),
    listDisputes(scope, "open", 50),
    listDisputes(scope, "resolved", 10),
    unreconciledTransfers(scope),
  ]);
  return { period, totals, byPlan, byMethod, invoices, filters, openDisputes, resolvedDisputes, unreconciled };
}

// The Billing tab: figures for a period, revenue, bank transfers to reconcile, disputes and every invoice.
export default function AdminBilling({ loaderData }: Route.ComponentProps) {
  const { period, totals, byPlan, byMethod, invoices, filters, openDisputes, resolvedDisputes, unreconciled } = loaderData;
  const invoiceOrder = pagerOrder(filters.sort === "issued", filters.dir);
  const [searchParams] = useSearchParams();
  const periodHref = (value: string) => {
    const next = new URLSearchParams(searchParams);
    next.set("period", value);
    return `?${next.toString()}`;
  };
  const periodName = BILLING_PERIODS[period];
  return (
    <div className="space-y-8">
      <div>
        <PageTitle>{m.admin_tab_billing()}</PageTitle>
        <p className="mt-1 text-slate-600">
          {m.admin_billing_intro_before()} <strong>{periodName.toLowerCase()}</strong> {m.admin_billing_intro_after()}
        </p>
        <p className="mt-1 text-sm">
          <Link to={href("/revenue-share")} className="font-medium text-brand-700 underline">
            {m.admin_billing_revenue_share_link()}
          </Link>
        </p>
        <nav aria-label={m.admin_billing_period()} className="mt-3 flex flex-wrap gap-2">
          {Object.entries(BILLING_PERIODS).map(([value, label]) => (
            <Link
              key={value}
              to={periodHref(value)}
              aria-current={value === period ? "true" : undefined}
              className={`rounded-full border px-3 py-1 text-sm font-medium ${value === period ? "border-brand-700 bg-brand-700 text-white" : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}
            >
              {label}
            </Link>
          ))}
        </nav>
      </div>

      <section aria-label={m.admin_billing_totals()} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label={m.admin_billing_invoiced()}
          value={formatKes(totals.invoicedCents)}
          icon={Wallet}
          hint={byCount(
            totals.invoices,
            () => m.admin_billing_invoices_one({ count: formatNumber(totals.invoices) }),
            () => m.admin_billing_invoices_other({ count: formatNumber(totals.invoices) }),
          )}
        />
        <StatCard label={m.admin_invoice_status_paid()} value={formatKes(totals.paidCents)} icon={CheckCircle2} />
        <StatCard
          label={m.admin_billing_outstanding()}
          value={formatKes(totals.outstandingCents)}
          icon={Clock}
          hint={m.admin_billing_outstanding_hint()}
        />
        <StatCard
          label={m.admin_invoice_status_overdue()}
          value={formatKes(totals.overdueCents)}
          icon={AlertTriangle}
          hint={totals.creditedCents ? m.admin_billing_credit_notes_total({ amount: formatKes(totals.creditedCents) }) : undefined}
        />
      </section>

      <Card aria-labelledby="revenue-title">
        <CardHeader
          id="revenue-title"
          title={m.admin_billing_revenue_title()}
          description={m.admin_billing_revenue_intro({ period: periodName })}
        />
        <div className="mt-4 grid gap-6 lg:grid-cols-2">
          <RevenueTable
            caption={m.admin_billing_by_plan()}
            labelHeader={m.admin_column_plan()}
            lines={byPlan}
            empty={m.admin_billing_by_plan_empty()}
          />
          <RevenueTable
            caption={m.admin_billing_by_method()}
            labelHeader={m.admin_billing_method()}
            lines={byMethod}
            empty={m.admin_billing_by_method_empty()}
          />
        </div>
      </Card>

      <Card aria-labelledby="reconcile-title" padding="none">
        <div className="px-4 pt-4">
          <CardHeader id="reconcile-title" title={m.admin_billing_reconciliation()} description={m.admin_billing_reconciliation_intro()} />
        </div>
        <Table
          caption={m.admin_billing_unreconciled()}
          columns={[
            {
              key: "invoice",
              header: m.admin_column_invoice(),
              cell: (r: (typeof unreconciled)[number]) => (
                <Link to={`/admin/billing/invoices/${r.id}`} className={link}>
                  {r.invoiceNumber}
                </Link>
              ),
            },
            { key: "business", header: m.admin_column_business(), cell: (r) => r.businessName },
            { key: "reference", header: m.admin_billing_reference(), cell: (r) => <code>{r.reference ?? "—"}</code> },
            { key: "amount", header: m.admin_column_amount(), align: "right", cell: (r) => formatKes(r.amountCents) },
            { key: "issued", header: m.admin_column_issued(), hideOnPhone: true, cell: (r) => formatInvoiceDate(r.issuedAt) },
            {
              key: "action",
              header: <span className="sr-only">{m.admin_column_actions()}</span>,
              align: "right",
              cell: (r) => (
                <Link
                  to={`/admin/billing/invoices/${r.id}?dialog=reconcile`}
                  className={link}
                  aria-label={m.admin_reconcile_number({ number: r.invoiceNumber })}
                >
                  {m.admin_reconcile()}
                </Link>
              ),
            },
          ]}
          rows={unreconciled}
          rowKey={(r) => r.id}
          empty={m.admin_billing_unreconciled_empty()}
        />
      </Card>

      <Card aria-labelledby="disputes-title" padding="none">
        <div className="px-4 pt-4">
          <CardHeader id="disputes-title" title={m.admin_disputes()} description={m.admin_billing_disputes_intro()} />
        </div>
        <h3 className="px-4 pt-4 text-sm font-semibold text-slate-900">
          {m.admin_billing_disputes_open({ count: formatNumber(openDisputes.length) })}
        </h3>
        <Table
          caption={m.admin_billing_disputes_open_caption()}
          columns={disputeColumns(false)}
          rows={openDisputes}
          rowKey={(d) => d.id}
          empty={m.admin_billing_disputes_open_empty()}
        />
        <h3 className="px-4 pt-4 text-sm font-semibold text-slate-900">{m.admin_billing_disputes_resolved()}</h3>
        <Table
          caption={m.admin_billing_disputes_resolved_caption()}
          columns={disputeColumns(true)}
          rows={resolvedDisputes}
          rowKey={(d) => d.id}
          empty={m.admin_billing_disputes_resolved_empty()}
        />
      </Card>

      <section aria-labelledby="invoices-title">
        <h2 id="invoices-title" className="text-lg font-semibold">
          {m.admin_invoices()}
        </h2>
        <p className="text-sm text-slate-600">{m.admin_billing_invoices_intro()}</p>
        <Form
          method="get"
          className="mt-3 grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end"
          role="search"
          aria-label={m.admin_invoices()}
        >
          <input type="hidden" name="period" value={period} />
          <input type="hidden" name="sort" value={filters.sort} />
          <input type="hidden" name="dir" value={filters.dir} />
          <FilterInput
            label={m.admin_search_title()}
            name="q"
            type="search"
            defaultValue={filters.q}
            placeholder={m.admin_billing_search_placeholder()}
          />
          <FilterSelect
            name="status"
            label={m.admin_column_status()}
            value={filters.status ?? ""}
            all={m.admin_all_statuses()}
            options={Object.entries(INVOICE_STATUS_BADGES).map(([v, b]) => [v, b.label])}
          />
          <FilterSelect
            name="plan"
            label={m.admin_column_plan()}
            value={filters.plan ?? ""}
            all={m.admin_all_plans()}
            options={[
              ["starter", "Starter"],
              ["growth", "Growth"],
              ["enterprise", "Enterprise"],
            ]}
          />
          <Button type="submit" variant="secondary">
            {m.admin_billing_filter()}
          </Button>
        </Form>
        <div className="mt-4 rounded-xl border border-slate-200 bg-white shadow-sm">
          <Table
            caption={m.admin_billing_invoices_caption()}
            columns={invoiceColumns()}
            rows={invoices.rows}
            rowKey={(r) => r.id}
            searchParams={searchParams}
            empty={m.admin_billing_invoices_empty()}
          />
        </div>
        <Pager
          searchParams={searchParams}
          newer={invoices.previous}
          older={invoices.next}
          label={m.admin_billing_invoice_pages()}
          order={invoiceOrder}
        />
      </section>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
