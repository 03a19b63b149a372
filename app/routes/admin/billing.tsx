import { Form, Link, useSearchParams } from "react-router";
import type { Route } from "./+types/billing";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { billingTotals, parseBillingPeriod, periodBounds, revenueByMethod, revenueByPlan } from "~/.server/domains/admin/billing/figures";
import { adminInvoicePage, parseInvoiceFilters } from "~/.server/domains/admin/billing/invoice-table";
import { listDisputes } from "~/.server/domains/admin/billing/disputes";
import { unreconciledTransfers } from "~/.server/domains/admin/billing/reconciliation";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Pager, pagerOrder, Table } from "~/components/ui/table";
import { disputeColumns, INVOICE_COLUMNS, link, RevenueTable } from "~/components/admin/billing/billing-tables";
import { StatCard } from "~/components/ui/stat-card";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { AlertTriangle, CheckCircle2, Clock, Wallet } from "~/components/ui/icons";
import { formatInvoiceDate, formatKes } from "~/lib/invoice";
import { BILLING_PERIODS } from "~/lib/admin-billing";
import { INVOICE_STATUS_BADGES } from "~/components/billing/invoice-history";
import { PageTitle } from "~/components/ui/page-title";

export const meta: Route.MetaFunction = () => [{ title: "Billing | Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
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
        <PageTitle>Billing</PageTitle>
        <p className="mt-1 text-slate-600">
          Figures in KES for <strong>{periodName.toLowerCase()}</strong> (Nairobi time): tax invoices issued in the period (receipts on
          account and credit notes are not counted as invoiced). Revenue by method is the money received in the period.
        </p>
        <nav aria-label="Period" className="mt-3 flex flex-wrap gap-2">
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

      <section aria-label="Totals" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label="Invoiced"
          value={formatKes(totals.invoicedCents)}
          icon={Wallet}
          hint={`${totals.invoices.toLocaleString("en-US")} invoices`}
        />
        <StatCard label="Paid" value={formatKes(totals.paidCents)} icon={CheckCircle2} />
        <StatCard label="Outstanding" value={formatKes(totals.outstandingCents)} icon={Clock} hint="Pending, overdue and disputed" />
        <StatCard
          label="Overdue"
          value={formatKes(totals.overdueCents)}
          icon={AlertTriangle}
          hint={totals.creditedCents ? `Credit notes: ${formatKes(totals.creditedCents)}` : undefined}
        />
      </section>

      <Card aria-labelledby="revenue-title">
        <CardHeader
          id="revenue-title"
          title="Revenue breakdown"
          description={`${periodName}: paid invoices by plan, money received by method.`}
        />
        <div className="mt-4 grid gap-6 lg:grid-cols-2">
          <RevenueTable caption="By plan (paid invoices)" lines={byPlan} empty="No paid invoices in this period." />
          <RevenueTable caption="By payment method (money received)" lines={byMethod} empty="No payments in this period." />
        </div>
      </Card>

      <Card aria-labelledby="reconcile-title" padding="none">
        <div className="px-4 pt-4">
          <CardHeader
            id="reconcile-title"
            title="Reconciliation"
            description="Bank transfers awaiting their money, oldest first. Find each reference on the bank statement, then reconcile it."
          />
        </div>
        <Table
          caption="Unreconciled bank transfers"
          columns={[
            {
              key: "invoice",
              header: "Invoice",
              cell: (r: (typeof unreconciled)[number]) => (
                <Link to={`/admin/billing/invoices/${r.id}`} className={link}>
                  {r.invoiceNumber}
                </Link>
              ),
            },
            { key: "business", header: "Business", cell: (r) => r.businessName },
            { key: "reference", header: "Reference", cell: (r) => <code>{r.reference ?? "—"}</code> },
            { key: "amount", header: "Amount", align: "right", cell: (r) => formatKes(r.amountCents) },
            { key: "issued", header: "Issued", hideOnPhone: true, cell: (r) => formatInvoiceDate(r.issuedAt) },
            {
              key: "action",
              header: <span className="sr-only">Actions</span>,
              align: "right",
              cell: (r) => (
                <Link to={`/admin/billing/invoices/${r.id}?dialog=reconcile`} className={link} aria-label={`Reconcile ${r.invoiceNumber}`}>
                  Reconcile
                </Link>
              ),
            },
          ]}
          rows={unreconciled}
          rowKey={(r) => r.id}
          empty="No bank transfers await reconciliation."
        />
      </Card>

      <Card aria-labelledby="disputes-title" padding="none">
        <div className="px-4 pt-4">
          <CardHeader id="disputes-title" title="Disputes" description="Invoices tenants disputed, with their reason. Open ones first." />
        </div>
        <h3 className="px-4 pt-4 text-sm font-semibold text-slate-900">Open ({openDisputes.length})</h3>
        <Table caption="Open disputes" columns={disputeColumns(false)} rows={openDisputes} rowKey={(d) => d.id} empty="No open disputes." />
        <h3 className="px-4 pt-4 text-sm font-semibold text-slate-900">Recently resolved</h3>
        <Table
          caption="Resolved disputes"
          columns={disputeColumns(true)}
          rows={resolvedDisputes}
          rowKey={(d) => d.id}
          empty="No disputes resolved yet."
        />
      </Card>

      <section aria-labelledby="invoices-title">
        <h2 id="invoices-title" className="text-lg font-semibold">
          Invoices
        </h2>
        <p className="text-sm text-slate-600">Every organisation&apos;s invoices, receipts and credit notes, whatever the period above.</p>
        <Form method="get" className="mt-3 grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end" role="search" aria-label="Invoices">
          <input type="hidden" name="period" value={period} />
          <input type="hidden" name="sort" value={filters.sort} />
          <input type="hidden" name="dir" value={filters.dir} />
          <FilterInput label="Search" name="q" type="search" defaultValue={filters.q} placeholder="Invoice number, business or e-mail" />
          <FilterSelect
            name="status"
            label="Status"
            value={filters.status ?? ""}
            all="All statuses"
            options={Object.entries(INVOICE_STATUS_BADGES).map(([v, b]) => [v, b.label])}
          />
          <FilterSelect
            name="plan"
            label="Plan"
            value={filters.plan ?? ""}
            all="All plans"
            options={[
              ["starter", "Starter"],
              ["growth", "Growth"],
              ["enterprise", "Enterprise"],
            ]}
          />
          <Button type="submit" variant="secondary">
            Filter
          </Button>
        </Form>
        <div className="mt-4 rounded-xl border border-slate-200 bg-white shadow-sm">
          <Table
            caption="Invoices across organisations"
            columns={INVOICE_COLUMNS}
            rows={invoices.rows}
            rowKey={(r) => r.id}
            searchParams={searchParams}
            empty="No invoices match."
          />
        </div>
        <Pager searchParams={searchParams} newer={invoices.previous} older={invoices.next} label="Invoice pages" order={invoiceOrder} />
      </section>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
