import { Link } from "react-router";
import type { Route } from "./+types/overview";
import { Activity, Building2, MessageSquare, Wallet } from "~/components/ui/icons";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { messageVolume, openSystemAlerts, platformOverview } from "~/.server/domains/admin/overview/figures";
import { recentActivity, type TenantActivity } from "~/.server/domains/admin/overview/activity";
import { StatCard } from "~/components/ui/stat-card";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart } from "~/components/ui/chart";
import { Badge } from "~/components/ui/badge";
import { Name } from "~/components/ui/name";
import { Table, type Column } from "~/components/ui/table";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = () => [{ title: "Admin console | Jumbe" }];

/** Each revenue metric's definition in brief (decision 038 has them in full). */
const METRIC_WORDS = {
  mrr: "Monthly fees (before VAT) of the active postpaid organisations' plans, from the price list; prepaid plans have no fee.",
  arpu: "Completed payments in the month ÷ active organisations that had joined by its end:",
  churn: "Organisations suspended or closed in the month ÷ customers at its start:",
} as const;

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const [{ kpis, metrics, growth }, volume, activity, alerts] = await Promise.all([
    platformOverview(scope),
    messageVolume(scope),
    recentActivity(scope, { limit: 10 }),
    openSystemAlerts(scope),
  ]);
  return { kpis, metrics, growth, volume, activity: activity.records, alerts };
}

const ACTIVITY_COLUMNS: Column<TenantActivity>[] = [
  { key: "when", header: "When", cell: (r) => <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time> },
  {
    key: "organisation",
    header: "Organisation",
    cell: (r) => (
      <TextLink to={`/admin/users/${r.organizationId}`} weight="medium">
        <Name>{r.organizationName}</Name>
      </TextLink>
    ),
  },
  {
    key: "action",
    header: "Action",
    cell: (r) => (
      <>
        <span className="text-slate-900">{r.action}</span>
        {r.details ? <span className="block text-xs text-slate-500">{r.details}</span> : null}
      </>
    ),
  },
  { key: "status", header: "Status", cell: (r) => <Badge status={r.status} />, hideOnPhone: true },
];

// The platform at a glance: KPIs, revenue metrics with their definitions, growth and volume, activity and alerts.
export default function AdminOverview({ loaderData }: Route.ComponentProps) {
  const { kpis, metrics, growth, volume, activity, alerts } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>Admin Console</PageTitle>
        <p className="mt-1 text-slate-600">Platform overview across every organisation.</p>
      </div>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label="Organisations"
          value={formatNumber(kpis.organizations)}
          icon={Building2}
          href="/admin/users"
          hint={`${formatNumber(kpis.byStatus.active)} active · ${formatNumber(kpis.byStatus.pending)} pending · ${formatNumber(kpis.byStatus.suspended)} suspended`}
        />
        <StatCard
          label="Active in 30 days"
          value={formatNumber(kpis.active30)}
          icon={Activity}
          hint="A member signed in, or a message went or came, in the last 30 days."
        />
        <StatCard
          label="Messages this month"
          value={formatNumber(kpis.messagesThisMonth)}
          icon={MessageSquare}
          hint="Sent (accepted by Meta) since the 1st, Nairobi time."
        />
        <StatCard
          label="Revenue this month"
          value={formatKes(kpis.revenueThisMonthCents)}
          icon={Wallet}
          hint="Completed payments since the 1st, Nairobi time."
        />
      </div>

      <Card aria-labelledby="revenue-metrics">
        <CardHeader id="revenue-metrics" title="Revenue metrics" description="From the ledger and the price list." />
        <CardBody>
          <dl className="grid gap-4 md:grid-cols-3">
            <Metric label="MRR" value={formatKes(metrics.mrrCents)} definition={METRIC_WORDS.mrr} />
            <Metric
              label={`ARPU (${metrics.month})`}
              value={metrics.arpuCents === null ? "—" : formatKes(metrics.arpuCents)}
              definition={`${METRIC_WORDS.arpu} ${formatKes(metrics.monthRevenueCents)} ÷ ${formatNumber(metrics.payingBase)}.`}
            />
            <Metric
              label={`Churn (${metrics.month})`}
              value={metrics.churnPercent === null ? "—" : `${metrics.churnPercent}%`}
              definition={`${METRIC_WORDS.churn} ${formatNumber(metrics.churned)} of ${formatNumber(metrics.startBase)}.`}
            />
          </dl>
        </CardBody>
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <BarChart
            title="User growth: new organisations per month"
            data={growth.map((g) => ({ label: g.label, value: g.value }))}
            formatValue={formatNumber}
            labelHeader="Month"
            valueHeader="New organisations"
          />
        </Card>
        <Card>
          <BarChart
            title="Message volume: messages sent per day, last 30 days"
            data={volume.map((v) => ({ label: v.label, value: v.sent }))}
            formatValue={formatNumber}
            labelHeader="Day"
            valueHeader="Messages sent"
          />
        </Card>
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <Card padding="none" className="lg:col-span-2" aria-labelledby="recent-activity">
          <div className="p-5 pb-0">
            <CardHeader
              id="recent-activity"
              title="Recent activity"
              description="Every organisation's activity log, newest first. Export Data downloads the last 30 days."
            />
          </div>
          <div className="mt-3">
            <Table
              caption="Recent activity across organisations"
              columns={ACTIVITY_COLUMNS}
              rows={activity}
              rowKey={(r) => r.id}
              empty={<p>No activity yet.</p>}
            />
          </div>
        </Card>
        <Card aria-labelledby="system-alerts">
          <CardHeader
            id="system-alerts"
            title="System alerts"
            actions={
              <Link to="/admin/system" className="text-sm font-medium text-brand-700 underline">
                System health
              </Link>
            }
          />
          <CardBody>
            {alerts.length ? (
              <ul className="space-y-3">
                {alerts.map((alert) => (
                  <li key={alert.id} className="text-sm">
                    <Badge tone={alert.level === "error" ? "danger" : "warning"}>{alert.level === "error" ? "Error" : "Warning"}</Badge>{" "}
                    <span className="font-medium text-slate-900">{alert.title}</span>
                    {alert.details ? <span className="block text-slate-600">{alert.details}</span> : null}
                    <span className="block text-xs text-slate-500">
                      Since <time dateTime={alert.openedAt}>{formatWhen(alert.openedAt)}</time>
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-slate-600">No open alerts.</p>
            )}
          </CardBody>
        </Card>
      </div>
    </div>
  );
}

function Metric({ label, value, definition }: { label: string; value: string; definition: string }) {
  return (
    <div className="rounded-lg border border-slate-100 bg-slate-50 p-4">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className="mt-1 text-2xl font-bold text-slate-900" data-testid={`metric-${label.split(" ")[0]!.toLowerCase()}`}>
        {value}
      </dd>
      <dd className="mt-2 text-xs text-slate-600">{definition}</dd>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
