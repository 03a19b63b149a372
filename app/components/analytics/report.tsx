import { href } from "react-router";
import {
  analyticsQuery,
  CATEGORY_LABELS,
  CHART_LABELS,
  CHART_SERIES,
  rate,
  type AnalyticsDailyRow,
  type AnalyticsFilters,
  type AnalyticsReport,
  type AnalyticsTemplateRow,
  type ChartSeries,
} from "~/lib/analytics";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Funnel, SeriesBarChart } from "~/components/ui/chart";
import { Download } from "~/components/ui/icons";
import { Table, type Column } from "~/components/ui/table";
import { decimal, rangeWords, volumeCaption } from "./words";

const SERIES = CHART_SERIES.map((key) => ({
  key,
  label: CHART_LABELS[key],
  barClassName: key === "sent" ? "fill-brand-600" : key === "delivered" ? "fill-sky-600" : "fill-violet-600",
}));

interface AnalyticsReportProps {
  report: AnalyticsReport;
  filters: AnalyticsFilters;
  chart: ChartSeries;
  empty: boolean;
  /** The page's address with some filters changed. */
  pageHref: (change?: Partial<AnalyticsFilters>) => string;
}

/** The chart, funnel, categories, templates and the day-by-day table; or what to do when the period is empty. */
export function AnalyticsReportView({ report, filters, chart, empty, pageHref }: AnalyticsReportProps) {
  return (
    <>
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
    </>
  );
}

const percentCell = (n: number | null) => (n === null ? "–" : `${decimal(n)}%`);

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
