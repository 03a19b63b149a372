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
import { formatDateWords, intlLocale } from "~/lib/intl";
import { getLocale } from "~/paraglide/runtime";
import { m } from "~/paraglide/messages";

const series = () =>
  CHART_SERIES.map((key) => ({
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
            {m.app_analytics_empty_title()}
          </h2>
          <p className="mt-1 text-sm text-slate-600">{m.app_analytics_empty_body({ range: rangeWords(filters) })}</p>
          <ButtonLink to={href("/messaging")} className="mt-4">
            {m.app_analytics_open_message_center()}
          </ButtonLink>
        </Card>
      ) : (
        <>
          <Card aria-labelledby="volume-title">
            <CardHeader id="volume-title" title={m.app_analytics_volume()} description={volumeCaption(report)} />
            <CardBody>
              <SeriesBarChart
                title={volumeCaption(report)}
                points={report.volume.points.map((p) => ({
                  label: p.label,
                  values: { sent: p.sent, delivered: p.delivered, read: p.read },
                }))}
                series={series()}
                selected={chart}
                hrefFor={(key) => pageHref({ chart: key as ChartSeries })}
                formatValue={formatNumber}
                labelHeader={m.app_analytics_hour()}
              />
            </CardBody>
          </Card>

          <div className="grid gap-6 lg:grid-cols-2">
            <Card aria-labelledby="funnel-title">
              <CardHeader id="funnel-title" title={m.app_analytics_funnel()} description={m.app_analytics_funnel_note()} />
              <CardBody>
                <Funnel
                  title={m.app_analytics_funnel_title()}
                  formatValue={formatNumber}
                  steps={[
                    { label: m.app_analytics_sent(), value: report.funnel.sent },
                    { label: m.app_analytics_delivered(), value: report.funnel.delivered },
                    { label: m.app_analytics_read(), value: report.funnel.read },
                    { label: m.app_analytics_replied(), value: report.funnel.replied },
                  ]}
                />
              </CardBody>
            </Card>
            <Card aria-labelledby="categories-title">
              <CardHeader id="categories-title" title={m.app_analytics_by_category()} description={m.app_analytics_by_category_note()} />
              <CardBody>
                <Table
                  caption={m.app_analytics_by_category_caption()}
                  columns={categoryColumns()}
                  rows={report.categories}
                  rowKey={(c) => c.category}
                  empty={m.app_analytics_empty_title()}
                />
              </CardBody>
            </Card>
          </div>

          <Card aria-labelledby="templates-title">
            <CardHeader id="templates-title" title={m.app_analytics_top_templates()} description={m.app_analytics_top_templates_note()} />
            <CardBody>
              <Table
                caption={m.app_analytics_top_templates()}
                columns={templateColumns()}
                rows={report.templates}
                rowKey={(t) => t.id}
                empty={m.app_analytics_no_template_messages()}
              />
            </CardBody>
          </Card>

          <Card aria-labelledby="daily-title">
            <CardHeader
              id="daily-title"
              title={report.range.grain === "hour" ? m.app_analytics_hour_by_hour() : m.app_analytics_day_by_day()}
              description={report.range.grain === "hour" ? m.app_analytics_each_hour_note() : m.app_analytics_each_day_note()}
              actions={
                <a
                  href={`${href("/analytics/daily.csv")}${analyticsQuery({ ...filters, chart: "sent" })}`}
                  download
                  className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
                >
                  <Download className="size-4" aria-hidden /> {m.app_analytics_download_csv()}
                </a>
              }
            />
            <CardBody>
              <Table
                caption={report.range.grain === "hour" ? m.app_analytics_per_hour_caption() : m.app_analytics_per_day_caption()}
                columns={dailyColumns()}
                rows={report.daily}
                rowKey={(row) => row.period}
                empty={m.app_analytics_no_days()}
              />
            </CardBody>
          </Card>
        </>
      )}
    </>
  );
}

const percentCell = (n: number | null) => (n === null ? "–" : `${decimal(n)}%`);

const templateColumns = (): Column<AnalyticsTemplateRow>[] => [
  { key: "name", header: m.app_analytics_col_template(), cell: (t) => <span className="font-medium text-slate-900">{t.name}</span> },
  { key: "language", header: m.app_analytics_col_language(), cell: (t) => t.language ?? "–", hideOnPhone: true },
  { key: "sent", header: m.app_analytics_sent(), cell: (t) => formatNumber(t.sent), align: "right" },
  { key: "delivery", header: m.app_analytics_delivery_rate(), cell: (t) => percentCell(rate(t.delivered, t.sent)), align: "right" },
  {
    key: "read",
    header: m.app_analytics_read_rate(),
    cell: (t) => percentCell(rate(t.read, t.delivered)),
    align: "right",
    hideOnPhone: true,
  },
  {
    key: "reply",
    header: m.app_analytics_reply_rate(),
    cell: (t) => percentCell(rate(t.replied, t.read)),
    align: "right",
    hideOnPhone: true,
  },
];

const categoryColumns = (): Column<AnalyticsReport["categories"][number]>[] => [
  { key: "category", header: m.app_analytics_col_category(), cell: (c) => CATEGORY_LABELS[c.category] },
  { key: "messages", header: m.app_analytics_col_messages(), cell: (c) => formatNumber(c.messages), align: "right" },
  { key: "cost", header: m.app_analytics_col_cost(), cell: (c) => formatKes(c.spendCents), align: "right" },
];

// English keeps its own short months ("Sep", where Intl now writes "Sept"); other languages ask Intl.
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const shortDates = new Map<string, Intl.DateTimeFormat>();

/** "24 Nov 2026", or "24 Nov, 14:00" for an hour (as the page's language writes a short date). */
function periodCell(period: string) {
  const [date, hour] = period.split("T") as [string, string | undefined];
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  let words: string;
  if (getLocale() === "en") words = hour ? `${day} ${MONTHS[month - 1]}, ${hour}` : `${day} ${MONTHS[month - 1]} ${year}`;
  else {
    const key = `${intlLocale()}${hour ? "" : " year"}`;
    let format = shortDates.get(key);
    if (!format)
      shortDates.set(
        key,
        (format = new Intl.DateTimeFormat(intlLocale(), {
          day: "numeric",
          month: "short",
          ...(hour ? {} : { year: "numeric" }),
          timeZone: "UTC",
        })),
      );
    const dayWords = formatDateWords(format, new Date(Date.UTC(year, month - 1, day)));
    words = hour ? `${dayWords}, ${hour}` : dayWords;
  }
  return <time dateTime={period}>{words}</time>;
}

const dailyColumns = (): Column<AnalyticsDailyRow>[] => [
  { key: "period", header: m.app_analytics_period(), cell: (row) => periodCell(row.period) },
  { key: "sent", header: m.app_analytics_sent(), cell: (row) => formatNumber(row.messagesSent), align: "right" },
  { key: "delivered", header: m.app_analytics_delivered(), cell: (row) => formatNumber(row.messagesDelivered), align: "right" },
  { key: "read", header: m.app_analytics_read(), cell: (row) => formatNumber(row.messagesRead), align: "right" },
  { key: "replied", header: m.app_analytics_replied(), cell: (row) => formatNumber(row.messagesReplied), align: "right" },
  {
    key: "contacts",
    header: m.app_analytics_unique_contacts(),
    cell: (row) => formatNumber(row.uniqueContacts),
    align: "right",
    hideOnPhone: true,
  },
  {
    key: "response",
    header: m.app_analytics_col_avg_response(),
    cell: (row) => (row.avgResponseTime === null ? "–" : decimal(row.avgResponseTime)),
    align: "right",
    hideOnPhone: true,
  },
];
