import { Link } from "~/components/ui/link";
import type { Route } from "./+types/overview";
import { Activity, Building2, MessageSquare, Wallet } from "~/components/ui/icons";
import { can, requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { openSystemAlerts, platformOverview } from "~/.server/domains/admin/overview/figures";
import { recentActivity, type TenantActivity } from "~/.server/domains/admin/overview/activity";
import { activityInWords } from "~/.server/domains/activity/words";
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
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title_console() }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const [{ kpis, metrics, growth, volume }, activity, alerts] = await Promise.all([
    platformOverview(scope),
    recentActivity(scope, { limit: 10 }),
    openSystemAlerts(scope),
  ]);
  // Support staff see no money (issue 74, decision 112): the revenue card and metrics are not sent to them.
  const money = can(current.role, "platform:money");
  // The tenants' records in the administrator's language; the export keeps them as stored.
  return {
    kpis: { ...kpis, revenueThisMonthCents: money ? kpis.revenueThisMonthCents : null },
    metrics: money ? metrics : null,
    growth,
    volume,
    activity: activity.records.map(activityInWords),
    alerts,
  };
}

const activityColumns = (): Column<TenantActivity>[] => [
  { key: "when", header: m.admin_column_when(), cell: (r) => <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time> },
  {
    key: "organisation",
    header: m.admin_column_organisation(),
    cell: (r) => (
      <TextLink to={`/admin/users/${r.organizationId}`} weight="medium">
        <Name>{r.organizationName}</Name>
      </TextLink>
    ),
  },
  {
    key: "action",
    header: m.admin_column_action(),
    cell: (r) => (
      <>
        <span className="text-slate-900">{r.action}</span>
        {r.details ? <span className="block text-xs text-slate-500">{r.details}</span> : null}
      </>
    ),
  },
  { key: "status", header: m.admin_column_status(), cell: (r) => <Badge status={r.status} />, hideOnPhone: true },
];

// The platform at a glance: KPIs, revenue metrics with their definitions, growth and volume, activity and alerts.
export default function AdminOverview({ loaderData }: Route.ComponentProps) {
  const { kpis, metrics, growth, volume, activity, alerts } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.admin_overview_title()}</PageTitle>
        <p className="mt-1 text-slate-600">{m.admin_overview_intro()}</p>
      </div>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label={m.admin_overview_organisations()}
          value={formatNumber(kpis.organizations)}
          icon={Building2}
          href="/admin/users"
          hint={m.admin_overview_organisations_hint({
            active: formatNumber(kpis.byStatus.active),
            pending: formatNumber(kpis.byStatus.pending),
            suspended: formatNumber(kpis.byStatus.suspended),
          })}
        />
        <StatCard
          label={m.admin_overview_active30()}
          value={formatNumber(kpis.active30)}
          icon={Activity}
          hint={m.admin_overview_active30_hint()}
        />
        <StatCard
          label={m.admin_messages_this_month()}
          value={formatNumber(kpis.messagesThisMonth)}
          icon={MessageSquare}
          hint={m.admin_overview_messages_hint()}
        />
        {kpis.revenueThisMonthCents === null ? null : (
          <StatCard
            label={m.admin_overview_revenue()}
            value={formatKes(kpis.revenueThisMonthCents)}
            icon={Wallet}
            hint={m.admin_overview_revenue_hint()}
          />
        )}
      </div>

      {metrics ? (
        <Card aria-labelledby="revenue-metrics">
          <CardHeader id="revenue-metrics" title={m.admin_overview_metrics_title()} description={m.admin_overview_metrics_intro()} />
          <CardBody>
            <dl className="grid gap-4 md:grid-cols-3">
              <Metric
                id="mrr"
                label={m.admin_overview_mrr()}
                value={formatKes(metrics.mrrCents)}
                definition={m.admin_overview_mrr_definition()}
              />
              <Metric
                id="arpu"
                label={m.admin_overview_arpu({ month: metrics.month })}
                value={metrics.arpuCents === null ? "—" : formatKes(metrics.arpuCents)}
                definition={m.admin_overview_arpu_definition({
                  revenue: formatKes(metrics.monthRevenueCents),
                  base: formatNumber(metrics.payingBase),
                })}
              />
              <Metric
                id="churn"
                label={m.admin_overview_churn({ month: metrics.month })}
                value={metrics.churnPercent === null ? "—" : `${formatNumber(metrics.churnPercent)}%`}
                definition={m.admin_overview_churn_definition({
                  churned: formatNumber(metrics.churned),
                  start: formatNumber(metrics.startBase),
                })}
              />
            </dl>
          </CardBody>
        </Card>
      ) : null}

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <BarChart
            title={m.admin_overview_growth_title()}
            data={growth.map((g) => ({ label: g.label, value: g.value }))}
            formatValue={formatNumber}
            labelHeader={m.admin_overview_growth_month()}
            valueHeader={m.admin_overview_growth_value()}
          />
        </Card>
        <Card>
          <BarChart
            title={m.admin_overview_volume_title()}
            data={volume.map((v) => ({ label: v.label, value: v.sent }))}
            formatValue={formatNumber}
            labelHeader={m.admin_overview_volume_day()}
            valueHeader={m.admin_overview_volume_value()}
          />
        </Card>
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <Card padding="none" className="lg:col-span-2" aria-labelledby="recent-activity">
          <div className="p-5 pb-0">
            <CardHeader id="recent-activity" title={m.admin_recent_activity()} description={m.admin_overview_activity_intro()} />
          </div>
          <div className="mt-3">
            <Table
              caption={m.admin_overview_activity_caption()}
              columns={activityColumns()}
              rows={activity}
              rowKey={(r) => r.id}
              empty={<p>{m.admin_no_activity()}</p>}
            />
          </div>
        </Card>
        <Card aria-labelledby="system-alerts">
          <CardHeader
            id="system-alerts"
            title={m.admin_system_alerts()}
            actions={
              <Link to="/admin/system" className="text-sm font-medium text-brand-700 underline">
                {m.admin_overview_system_health()}
              </Link>
            }
          />
          <CardBody>
            {alerts.length ? (
              <ul className="space-y-3">
                {alerts.map((alert) => (
                  <li key={alert.id} className="text-sm">
                    <Badge tone={alert.level === "error" ? "danger" : "warning"}>
                      {alert.level === "error" ? m.admin_level_error() : m.admin_level_warning()}
                    </Badge>{" "}
                    <span className="font-medium text-slate-900">{alert.title}</span>
                    {alert.details ? <span className="block text-slate-600">{alert.details}</span> : null}
                    <span className="block text-xs text-slate-500">
                      {m.admin_overview_alert_since()} <time dateTime={alert.openedAt}>{formatWhen(alert.openedAt)}</time>
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-slate-600">{m.admin_no_open_alerts()}</p>
            )}
          </CardBody>
        </Card>
      </div>
    </div>
  );
}

function Metric({ id, label, value, definition }: { id: string; label: string; value: string; definition: string }) {
  return (
    <div className="rounded-lg border border-slate-100 bg-slate-50 p-4">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className="mt-1 text-2xl font-bold text-slate-900" data-testid={`metric-${id}`}>
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
