import { href } from "react-router";
import { analyticsQuery, type AnalyticsFilters } from "~/lib/analytics";
import { kesWords } from "~/lib/billing-words";
import { formatNumber } from "~/lib/dates";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { CheckCircle2, Download, Megaphone, Reply, ShoppingBag, Timer, Wallet } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { Table, type Column } from "~/components/ui/table";
import { Tabs } from "~/components/ui/tabs";
import type { AdFigureRow, AdFigures } from "~/.server/domains/analytics/ads";
import { decimal } from "./words";
import { m } from "~/paraglide/messages";

const kes = (shillings: number) => kesWords(shillings * 100);
const median = (minutes: number | null) => (minutes === null ? m.app_analytics_none() : decimal(minutes));

const SOURCE_TYPES = {
  ad: m.app_analytics_ads_type_ad,
  post: m.app_analytics_ads_type_post,
  unknown: m.app_analytics_ads_type_unknown,
};
const sourceTypeWords = (r: AdFigureRow) => (r.sourceType ? SOURCE_TYPES[r.sourceType]() : "");

/** Overview and Ads: the same filters on both (each tab is a link keeping the query). */
export function AnalyticsTabs({ filters, current }: { filters: AnalyticsFilters; current: "overview" | "ads" }) {
  const query = analyticsQuery({ ...filters, chart: "sent" });
  return (
    <Tabs
      label={m.app_analytics_tabs()}
      items={[
        { label: m.app_analytics_tab_overview(), to: `${href("/analytics")}${query}`, current: current === "overview" },
        { label: m.app_analytics_tab_ads(), to: `${href("/analytics/ads")}${query}`, current: current === "ads" },
      ]}
    />
  );
}

const figureColumns: Column<AdFigureRow>[] = [
  { key: "conversations", header: m.app_analytics_ads_col_conversations(), cell: (r) => formatNumber(r.conversations), align: "right" },
  {
    key: "answered",
    header: m.app_analytics_ads_col_answered(),
    cell: (r) => formatNumber(r.answered),
    align: "right",
    hideOnPhone: true,
  },
  {
    key: "median",
    header: m.app_analytics_ads_col_median(),
    cell: (r) => median(r.medianResponseMinutes),
    align: "right",
    hideOnPhone: true,
  },
  { key: "orders", header: m.app_analytics_ads_col_orders(), cell: (r) => formatNumber(r.orders), align: "right", hideOnPhone: true },
  { key: "paid", header: m.app_analytics_ads_col_paid(), cell: (r) => formatNumber(r.paymentsPaid), align: "right", hideOnPhone: true },
  { key: "collected", header: m.app_analytics_ads_col_collected(), cell: (r) => kes(r.kesCollected), align: "right" },
];

const adColumns: Column<AdFigureRow>[] = [
  {
    key: "ad",
    header: m.app_analytics_ads_col_headline(),
    cell: (r) => (
      <span className="block min-w-0">
        <span className="block font-medium break-words text-slate-900">{r.headline ?? m.app_analytics_ads_no_headline()}</span>
        <span className="block text-xs break-all text-slate-500">
          {sourceTypeWords(r)} · {r.id}
        </span>
      </span>
    ),
  },
  ...figureColumns,
];

const typeColumns: Column<AdFigureRow>[] = [
  { key: "type", header: m.app_analytics_ads_col_source_type(), cell: (r) => <span className="font-medium">{sourceTypeWords(r)}</span> },
  ...figureColumns,
];

/**
 * What the period's Click-to-WhatsApp ads brought (issue 77): conversations, answered, the median first
 * response, orders, payments paid and the shillings collected, in all, per ad and per source type.
 */
export function AdsSection({ figures, filters }: { figures: AdFigures; filters: AnalyticsFilters }) {
  const { total } = figures;
  return (
    <section aria-labelledby="ads-title" className="space-y-4" data-testid="analytics-ads">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="ads-title" className="text-lg font-semibold text-slate-900">
            {m.app_analytics_tab_ads()}
          </h2>
          <p className="text-sm text-slate-600">{m.app_analytics_ads_note()}</p>
        </div>
        <a
          href={`${href("/analytics/ads.csv")}${analyticsQuery({ ...filters, chart: "sent" })}`}
          download
          className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
        >
          <Download className="size-4" aria-hidden /> {m.app_analytics_ads_download_csv()}
        </a>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 sm:gap-4 lg:grid-cols-3">
        <StatCard
          label={m.app_analytics_ads_col_conversations()}
          value={formatNumber(total.conversations)}
          icon={Megaphone}
          hint={m.app_analytics_ads_conversations_hint()}
        />
        <StatCard
          label={m.app_analytics_ads_col_answered()}
          value={formatNumber(total.answered)}
          icon={Reply}
          hint={m.app_analytics_ads_answered_hint()}
        />
        <StatCard
          label={m.app_analytics_ads_col_median()}
          value={median(total.medianResponseMinutes)}
          icon={Timer}
          hint={m.app_analytics_ads_median_hint()}
        />
        <StatCard label={m.app_analytics_ads_col_orders()} value={formatNumber(total.orders)} icon={ShoppingBag} />
        <StatCard label={m.app_analytics_ads_col_paid()} value={formatNumber(total.paymentsPaid)} icon={CheckCircle2} />
        <StatCard
          label={m.app_analytics_ads_col_collected()}
          value={kes(total.kesCollected)}
          icon={Wallet}
          hint={m.app_analytics_ads_collected_hint()}
        />
      </div>
      <Card aria-labelledby="ads-by-ad">
        <CardHeader id="ads-by-ad" title={m.app_analytics_ads_by_ad()} description={m.app_analytics_ads_by_ad_note()} level={3} />
        <CardBody>
          <Table
            caption={m.app_analytics_ads_by_ad()}
            columns={adColumns}
            rows={figures.byAd}
            rowKey={(r) => r.id}
            empty={m.app_analytics_ads_none()}
          />
        </CardBody>
      </Card>
      <Card aria-labelledby="ads-by-type">
        <CardHeader id="ads-by-type" title={m.app_analytics_ads_by_type()} description={m.app_analytics_ads_by_type_note()} level={3} />
        <CardBody>
          <Table
            caption={m.app_analytics_ads_by_type()}
            columns={typeColumns}
            rows={figures.bySourceType}
            rowKey={(r) => r.id}
            empty={m.app_analytics_ads_none()}
          />
        </CardBody>
      </Card>
    </section>
  );
}
