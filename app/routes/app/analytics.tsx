import { useState } from "react";
import { data, Form, href, redirect } from "react-router";
import type { Route } from "./+types/analytics";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { analyticsPage, tenantAnalyticsFilters } from "~/.server/domains/analytics/page";
import {
  ANALYTICS_PERIODS,
  analyticsQuery,
  CATEGORY_LABELS,
  CHART_LABELS,
  CHART_SERIES,
  change,
  daysInRange,
  PERIOD_LABELS,
  rate,
  type AnalyticsDailyRow,
  type AnalyticsFilters,
  type AnalyticsReport,
  type AnalyticsTemplateRow,
  type ChartSeries,
  type Compared,
} from "~/lib/analytics";
import { longDate } from "~/lib/billing-words";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Funnel, SeriesBarChart } from "~/components/ui/chart";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { StatCard, type Change } from "~/components/ui/stat-card";
import { Table, type Column } from "~/components/ui/table";
import {
  BarChart3,
  CheckCheck,
  CheckCircle2,
  Download,
  Eye,
  MessageCircle,
  Reply,
  Send,
  Timer,
  Users,
  Wallet,
  XCircle,
} from "~/components/ui/icons";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";

// Advanced Analytics: everyone who sees the campaigns' results.
export const handle: PermissionHandle = { permission: "campaigns:view" };

export const meta: Route.MetaFunction = () => [{ title: "Advanced Analytics | Jumbe" }];

/** Advanced Analytics (spec section 2): every filter in the URL; a refused one shows the default period's figures and why (400). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "campaigns:view");
  const { searchParams, search } = args.url;
  const now = new Date();
  const resolved = await tenantAnalyticsFilters(current.organization.id, searchParams, now);
  // The form sends every field (the dates for any period, an empty number): the address it lands on says only what counts.
  const canonical = resolved.ok ? analyticsQuery(resolved.filters) : search;
  if (search && canonical !== search) throw redirect(`${href("/analytics")}${canonical}`);
  const page = await analyticsPage(current.organization.id, searchParams, now, resolved);
  return page.error ? data(page, { status: 400 }) : page;
}

const SERIES = CHART_SERIES.map((key) => ({
  key,
  label: CHART_LABELS[key],
  barClassName: key === "sent" ? "fill-brand-600" : key === "delivered" ? "fill-sky-600" : "fill-violet-600",
}));

export default function Analytics({ loaderData }: Route.ComponentProps) {
  const { report, error, form } = loaderData;
  const { filters, cards } = report;
  // The series shown: the URL's, or (with JavaScript) the one just chosen, kept while the other filters stay.
  const others = analyticsQuery(filters, { chart: "sent" });
  const [picked, setPicked] = useState<{ others: string; chart: ChartSeries } | null>(null);
  const chart = picked?.others === others ? picked.chart : filters.chart;
  const pageHref = (change: Partial<AnalyticsFilters> = {}) => `${href("/analytics")}${analyticsQuery({ ...filters, chart }, change)}`;
  const selectSeries = (key: string) => {
    const next = key as ChartSeries;
    setPicked({ others, chart: next });
    // No loader round trip: the address bar follows (React Router's own history state kept), so a reload or a copied link shows the same.
    window.history.replaceState(window.history.state, "", pageHref({ chart: next }));
  };
  const against = comparedWith(filters);
  const empty = (cards.sent.value ?? 0) + (cards.received.value ?? 0) + (cards.failed.value ?? 0) === 0;

  return (
    <div className="space-y-6">
      <div>
        <PageTitle>Advanced Analytics</PageTitle>
        <p className="mt-1 text-slate-600" data-testid="analytics-period">
          {periodWords(filters)}
        </p>
      </div>

      {error ? (
        <Notice tone="warning" title="Those filters could not be used.">
          {error} Showing the {PERIOD_LABELS[filters.period].toLowerCase()} instead.
        </Notice>
      ) : null}

      <Form
        method="get"
        key={JSON.stringify(form)}
        aria-label="Analytics filters"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
      >
        <FilterSelect name="period" label="Period" value={form.period} options={ANALYTICS_PERIODS.map((p) => [p, PERIOD_LABELS[p]])} />
        <FilterInput type="date" name="from" label="From (custom range)" defaultValue={form.from} />
        <FilterInput type="date" name="to" label="To (custom range)" defaultValue={form.to} />
        {report.numbers.length > 1 ? (
          <FilterSelect
            name="number"
            label="Business number"
            value={form.number}
            all="All numbers"
            options={report.numbers.map((n) => [n.id, n.label])}
          />
        ) : null}
        {chart !== "sent" ? <input type="hidden" name="chart" value={chart} /> : null}
        <Button type="submit">Apply</Button>
      </Form>

      <section aria-label="Figures" className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        <StatCard label="Messages sent" value={count(cards.sent)} icon={Send} change={changeOf(cards.sent, against)} />
        <StatCard label="Delivered" value={count(cards.delivered)} icon={CheckCheck} change={changeOf(cards.delivered, against)} />
        <StatCard label="Read" value={count(cards.read)} icon={Eye} change={changeOf(cards.read, against)} />
        <StatCard label="Replied" value={count(cards.replied)} icon={Reply} change={changeOf(cards.replied, against)} />
        <StatCard label="Messages received" value={count(cards.received)} icon={MessageCircle} change={changeOf(cards.received, against)} />
        <StatCard
          label="Unique contacts"
          value={count(cards.uniqueContacts)}
          icon={Users}
          change={changeOf(cards.uniqueContacts, against)}
        />
        <StatCard
          label="Avg. first response"
          value={cards.avgResponseMinutes.value === null ? "None" : `${decimal(cards.avgResponseMinutes.value)} min`}
          icon={Timer}
          change={changeOf(cards.avgResponseMinutes, against, "down")}
          hint={
            cards.avgResponseMinutes.value === null
              ? "No customer was answered in this period."
              : "From a customer's message to the answer."
          }
        />
        <StatCard
          label="Delivery rate"
          value={percentValue(cards.deliveryRate.value)}
          icon={CheckCircle2}
          change={changeOf(cards.deliveryRate, against)}
          hint={cards.deliveryRate.value === null ? "Nothing was sent in this period." : "Delivered of sent."}
        />
        <StatCard
          label="Read rate"
          value={percentValue(cards.readRate.value)}
          icon={BarChart3}
          change={changeOf(cards.readRate, against)}
          hint={cards.readRate.value === null ? "Nothing was delivered in this period." : "Read of delivered."}
        />
        <StatCard label="Failed" value={count(cards.failed)} icon={XCircle} change={changeOf(cards.failed, against, "down")} />
        <StatCard
          label="Spend"
          value={formatKes(cards.spendCents.value ?? 0)}
          icon={Wallet}
          change={changeOf(cards.spendCents, against)}
          hint={
            report.billingType === "postpaid"
              ? "Your plan is postpaid: usage is billed on your monthly invoice."
              : "Template messages paid from your wallet."
          }
        />
      </section>

      {empty ? (
        <Card aria-labelledby="analytics-empty" className="text-center">
          <h2 id="analytics-empty" className="font-semibold text-slate-900">
            No messages in this period.
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            Nothing was sent or received on WhatsApp between {rangeWords(filters)}. Send a campaign or a broadcast from the Message Center,
            and its figures show here within seconds.
          </p>
          <ButtonLink to={href("/messaging")} className="mt-4">
            Open the Message Center
          </ButtonLink>
        </Card>
      ) : (
        <>
          <Card aria-labelledby="volume-title">
            <CardHeader id="volume-title" title="Message volume" description={volumeCaption(report)} />
            <CardBody>
              <SeriesBarChart
                title={volumeCaption(report)}
                points={report.volume.points.map((p) => ({
                  label: p.label,
                  values: { sent: p.sent, delivered: p.delivered, read: p.read },
                }))}
                series={SERIES}
                selected={chart}
                hrefFor={(key) => pageHref({ chart: key as ChartSeries })}
                onSelect={selectSeries}
                formatValue={formatNumber}
                labelHeader="Hour"
              />
            </CardBody>
          </Card>

          <div className="grid gap-6 lg:grid-cols-2">
            <Card aria-labelledby="funnel-title">
              <CardHeader id="funnel-title" title="Funnel" description="Each step as a share of the one before." />
              <CardBody>
                <Funnel
                  title="From sent to replied"
                  formatValue={formatNumber}
                  steps={[
                    { label: "Sent", value: report.funnel.sent },
                    { label: "Delivered", value: report.funnel.delivered },
                    { label: "Read", value: report.funnel.read },
                    { label: "Replied", value: report.funnel.replied },
                  ]}
                />
              </CardBody>
            </Card>
            <Card aria-labelledby="categories-title">
              <CardHeader id="categories-title" title="By pricing category" description="Meta's categories: what was sent, and its cost." />
              <CardBody>
                <Table
                  caption="Messages and cost by Meta pricing category"
                  columns={CATEGORY_COLUMNS}
                  rows={report.categories}
                  rowKey={(c) => c.category}
                  empty="No messages in this period."
                />
              </CardBody>
            </Card>
          </div>

          <Card aria-labelledby="templates-title">
            <CardHeader id="templates-title" title="Top templates" description="By messages sent in this period." />
            <CardBody>
              <Table
                caption="Top templates"
                columns={TEMPLATE_COLUMNS}
                rows={report.templates}
                rowKey={(t) => t.id}
                empty="No template messages in this period."
              />
            </CardBody>
          </Card>

          <Card aria-labelledby="daily-title">
            <CardHeader
              id="daily-title"
              title={report.range.grain === "hour" ? "Hour by hour" : "Day by day"}
              description={`${report.range.grain === "hour" ? "Each hour" : "Each day"} of the period (Nairobi time), oldest first.`}
              actions={
                <a
                  href={`${href("/analytics/daily.csv")}${analyticsQuery({ ...filters, chart: "sent" })}`}
                  download
                  className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
                >
                  <Download className="size-4" aria-hidden /> Download CSV
                </a>
              }
            />
            <CardBody>
              <Table
                caption={report.range.grain === "hour" ? "Figures per hour" : "Figures per day"}
                columns={DAILY_COLUMNS}
                rows={report.daily}
                rowKey={(row) => row.period}
                empty="No days in this period."
              />
            </CardBody>
          </Card>
        </>
      )}
    </div>
  );
}

const count = (figure: Compared) => formatNumber(figure.value ?? 0);
const decimalFormat = new Intl.NumberFormat("en-KE", { maximumFractionDigits: 1 });
const decimal = (n: number) => decimalFormat.format(n);
const percentValue = (n: number | null) => (n === null ? "None" : `${decimal(n)}%`);
const percentCell = (n: number | null) => (n === null ? "–" : `${decimal(n)}%`);

function changeOf(figure: Compared, against: string, better: Change["better"] = "up"): Change {
  return { percent: change(figure), against, better };
}

/** "previous 7 days", "previous 24 hours": the period each change is measured against. */
function comparedWith(filters: AnalyticsFilters) {
  if (filters.period === "24h") return "previous 24 hours";
  const days = daysInRange(filters.from, filters.to);
  return days === 1 ? "previous day" : `previous ${days} days`;
}

function rangeWords(filters: AnalyticsFilters) {
  return filters.from === filters.to ? longDate(filters.from) : `${longDate(filters.from)} and ${longDate(filters.to)}`;
}

/** "Last 7 days: 18 November 2026 to 24 November 2026, compared with the 7 days before." */
function periodWords(filters: AnalyticsFilters) {
  if (filters.period === "24h") return "Last 24 hours, to the current hour, compared with the 24 hours before.";
  const days = daysInRange(filters.from, filters.to);
  const span = filters.from === filters.to ? longDate(filters.from) : `${longDate(filters.from)} to ${longDate(filters.to)}`;
  return `${PERIOD_LABELS[filters.period]}: ${span}, compared with the ${days === 1 ? "day" : `${days} days`} before.`;
}

function volumeCaption(report: AnalyticsReport) {
  return report.volume.mode === "hours" ? "Messages per hour, last 24 hours (Nairobi time)" : "Messages by hour of the day (Nairobi time)";
}

const TEMPLATE_COLUMNS: Column<AnalyticsTemplateRow>[] = [
  { key: "name", header: "Template", cell: (t) => <span className="font-medium text-slate-900">{t.name}</span> },
  { key: "language", header: "Language", cell: (t) => t.language ?? "–", hideOnPhone: true },
  { key: "sent", header: "Sent", cell: (t) => formatNumber(t.sent), align: "right" },
  { key: "delivery", header: "Delivery rate", cell: (t) => percentCell(rate(t.delivered, t.sent)), align: "right" },
  { key: "read", header: "Read rate", cell: (t) => percentCell(rate(t.read, t.delivered)), align: "right", hideOnPhone: true },
  { key: "reply", header: "Reply rate", cell: (t) => percentCell(rate(t.replied, t.read)), align: "right", hideOnPhone: true },
];

const CATEGORY_COLUMNS: Column<AnalyticsReport["categories"][number]>[] = [
  { key: "category", header: "Category", cell: (c) => CATEGORY_LABELS[c.category] },
  { key: "messages", header: "Messages", cell: (c) => formatNumber(c.messages), align: "right" },
  { key: "cost", header: "Cost", cell: (c) => formatKes(c.spendCents), align: "right" },
];

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "24 Nov 2026", or "24 Nov, 14:00" for an hour. */
function periodCell(period: string) {
  const [date, hour] = period.split("T") as [string, string | undefined];
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const words = hour ? `${day} ${MONTHS[month - 1]}, ${hour}` : `${day} ${MONTHS[month - 1]} ${year}`;
  return <time dateTime={period}>{words}</time>;
}

const DAILY_COLUMNS: Column<AnalyticsDailyRow>[] = [
  { key: "period", header: "Period", cell: (row) => periodCell(row.period) },
  { key: "sent", header: "Sent", cell: (row) => formatNumber(row.messagesSent), align: "right" },
  { key: "delivered", header: "Delivered", cell: (row) => formatNumber(row.messagesDelivered), align: "right" },
  { key: "read", header: "Read", cell: (row) => formatNumber(row.messagesRead), align: "right" },
  { key: "replied", header: "Replied", cell: (row) => formatNumber(row.messagesReplied), align: "right" },
  { key: "contacts", header: "Unique contacts", cell: (row) => formatNumber(row.uniqueContacts), align: "right", hideOnPhone: true },
  {
    key: "response",
    header: "Avg. response (min)",
    cell: (row) => (row.avgResponseTime === null ? "–" : decimal(row.avgResponseTime)),
    align: "right",
    hideOnPhone: true,
  },
];

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
