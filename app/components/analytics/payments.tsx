import { href } from "react-router";
import { analyticsQuery, type AnalyticsFilters } from "~/lib/analytics";
import { kesWords } from "~/lib/billing-words";
import { formatNumber } from "~/lib/dates";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { AlertTriangle, CheckCircle2, Download, Gauge, Send, Wallet } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { Table, type Column } from "~/components/ui/table";
import type { PaymentFigureRow, PaymentFigures } from "~/.server/domains/analytics/payments";
import { decimal } from "./words";
import { m } from "~/paraglide/messages";

/** "KES 1,250": a request is in whole shillings, written as the rest of the page writes KES. */
const kes = (shillings: number) => kesWords(shillings * 100);
const percent = (n: number | null) => (n === null ? m.app_analytics_none() : `${decimal(n)}%`);

const columns = (nameHeader: string): Column<PaymentFigureRow>[] => [
  { key: "name", header: nameHeader, cell: (r) => <span className="font-medium text-slate-900">{r.name}</span> },
  { key: "requested", header: m.app_analytics_payments_col_requested(), cell: (r) => formatNumber(r.requested), align: "right" },
  { key: "paid", header: m.app_analytics_payments_col_paid(), cell: (r) => formatNumber(r.paid), align: "right", hideOnPhone: true },
  { key: "conversion", header: m.app_analytics_payments_col_conversion(), cell: (r) => percent(r.conversion), align: "right" },
  { key: "collected", header: m.app_analytics_payments_col_collected(), cell: (r) => kes(r.kesCollected), align: "right" },
];

function FigureTable(props: { id: string; title: string; note: string; nameHeader: string; rows: PaymentFigureRow[]; empty: string }) {
  return (
    <Card aria-labelledby={props.id}>
      <CardHeader id={props.id} title={props.title} description={props.note} level={3} />
      <CardBody>
        <Table caption={props.title} columns={columns(props.nameHeader)} rows={props.rows} rowKey={(r) => r.id} empty={props.empty} />
      </CardBody>
    </Card>
  );
}

/**
 * The period's M-Pesa payment requests (issue 76): made, paid, the conversion rate and the shillings
 * collected, then the same by agent, by flow and by campaign, with the CSV of all of it.
 */
export function PaymentsSection({ figures, filters }: { figures: PaymentFigures; filters: AnalyticsFilters }) {
  return (
    <section aria-labelledby="payments-title" className="space-y-4" data-testid="analytics-payments">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="payments-title" className="text-lg font-semibold text-slate-900">
            {m.app_analytics_payments()}
          </h2>
          <p className="text-sm text-slate-600">{m.app_analytics_payments_note()}</p>
        </div>
        <a
          href={`${href("/analytics/payments.csv")}${analyticsQuery({ ...filters, chart: "sent" })}`}
          download
          className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
        >
          <Download className="size-4" aria-hidden /> {m.app_analytics_payments_download_csv()}
        </a>
      </div>
      {/* One a row on a phone: "4 650,00 KES" in French is wider than half of a 360 px screen. */}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 sm:gap-4 lg:grid-cols-4">
        <StatCard label={m.app_analytics_payments_requested()} value={formatNumber(figures.requested)} icon={Send} />
        <StatCard label={m.app_analytics_payments_paid()} value={formatNumber(figures.paid)} icon={CheckCircle2} />
        <StatCard
          label={m.app_analytics_payments_conversion()}
          value={percent(figures.conversion)}
          icon={Gauge}
          hint={m.app_analytics_payments_conversion_hint()}
        />
        <StatCard
          label={m.app_analytics_payments_collected()}
          value={kes(figures.kesCollected)}
          icon={Wallet}
          hint={m.app_analytics_payments_collected_hint()}
        />
      </div>
      {figures.amountMismatches > 0 ? (
        <p className="flex items-center gap-2 text-sm text-amber-800" data-testid="analytics-payments-mismatches">
          <AlertTriangle className="size-4 shrink-0" aria-hidden />
          {m.app_analytics_payments_mismatches({ count: formatNumber(figures.amountMismatches) })}
        </p>
      ) : null}
      <div className="grid gap-6">
        <FigureTable
          id="payments-agents"
          title={m.app_analytics_payments_by_agent()}
          note={m.app_analytics_payments_by_agent_note()}
          nameHeader={m.app_analytics_payments_col_agent()}
          rows={figures.byAgent}
          empty={m.app_analytics_payments_none_agent()}
        />
        <FigureTable
          id="payments-flows"
          title={m.app_analytics_payments_by_flow()}
          note={m.app_analytics_payments_by_flow_note()}
          nameHeader={m.app_analytics_payments_col_flow()}
          rows={figures.byFlow}
          empty={m.app_analytics_payments_none_flow()}
        />
        <FigureTable
          id="payments-campaigns"
          title={m.app_analytics_payments_by_campaign()}
          note={m.app_analytics_payments_by_campaign_note()}
          nameHeader={m.app_analytics_payments_col_campaign()}
          rows={figures.byCampaign}
          empty={m.app_analytics_payments_none_campaign()}
        />
      </div>
    </section>
  );
}
