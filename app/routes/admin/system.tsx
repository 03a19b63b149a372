import { data } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/system";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { resolveAlertAction, systemPage } from "~/.server/domains/admin/system/page";
import { SYSTEM_RANGES } from "~/lib/system-ranges";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart, LineChart } from "~/components/ui/chart";
import { Notice } from "~/components/ui/notice";
import { Table } from "~/components/ui/table";
import { ALERT_COLUMNS, bytes, InstanceCard, RangeSelector, ResolveForm, ServiceCard } from "~/components/admin/system/system-parts";
import { formatNumber, formatWhen } from "~/lib/dates";
import { readForm } from "~/.server/infrastructure/http/forms";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = () => [{ title: "System | Admin console | Jumbe" }];

/**
 * The System tab (issue 19): health cards from real probes (cached a few seconds in this process:
 * app/.server/domains/admin/system/probes.ts says why), metric_samples charted over the chosen range, each
 * instance's resources, database statistics, and the alerts with Resolve. Everything is a link or a
 * POST form: it works without JavaScript.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const page = await systemPage(platformScope(current), args.url.searchParams);
  return data(page, { status: page.rangeError ? 400 : 200, headers: { "Cache-Control": "no-store" } });
}

const IntentSchema = z.object({ intent: z.literal("resolve") });

export async function action(args: Route.ActionArgs) {
  const current = await requirePlatformAdmin(args);
  platformScope(current);
  const formData = await readForm(args.request);
  // The alert's id and note are read through the domain's own schema (ResolveAlertForm).
  if (!IntentSchema.safeParse({ intent: formData.get("intent") }).success)
    return data({ alertId: "", message: "Unknown action." }, { status: 400 });
  const outcome = await resolveAlertAction(current, requestMeta(args.request, args.context), formData);
  if (!outcome.ok) return data({ alertId: outcome.alertId, message: outcome.message }, { status: outcome.status });
  return redirectWithToast(`${args.url.pathname}${args.url.search}#alerts`, "success", outcome.message);
}

export default function AdminSystem({ loaderData, actionData }: Route.ComponentProps) {
  const { range, rangeError, health, series, database, openAlerts, alerts, moreAlerts } = loaderData;
  const words = SYSTEM_RANGES[range].words;
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <PageTitle>System</PageTitle>
          <p className="mt-1 text-slate-600">
            Service health, metrics sampled every minute, resources per instance, database statistics and alerts.
          </p>
        </div>
        <RangeSelector range={range} />
      </div>
      {rangeError ? <Notice tone="warning">{rangeError}</Notice> : null}

      <section aria-labelledby="health-title">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="health-title" className="text-lg font-semibold text-slate-900">
            Service health
          </h2>
          <p className="text-sm text-slate-600">
            Probed <time dateTime={health.checkedAt}>{formatWhen(health.checkedAt)}</time> by this instance
            {health.cached ? " (kept a few seconds; older results are refreshed behind the page)" : ""}.{" "}
            <TextLink to={`?range=${range}&probe=now`} preventScrollReset>
              Probe again
            </TextLink>
          </p>
        </div>
        <div className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {health.services.map((probe) => (
            <ServiceCard key={probe.service} probe={probe} />
          ))}
        </div>
        <h3 className="mt-6 font-semibold text-slate-900">Instances</h3>
        {health.instances.length ? (
          <div className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {health.instances.map((instance) => (
              <InstanceCard key={instance.id} instance={instance} />
            ))}
          </div>
        ) : (
          <p className="mt-2 text-sm text-slate-600">No instance has written a heartbeat yet.</p>
        )}
      </section>

      <section aria-labelledby="alerts-title" id="alerts">
        <h2 id="alerts-title" className="text-lg font-semibold text-slate-900">
          Open alerts
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Raised by rules every minute: an instance missing, queue lag, error rate, webhook backlog and failures. A rule resolves its alert
          when the condition clears; resolve one yourself with a note (recorded in the audit log).
        </p>
        {actionData && !openAlerts.some((a) => a.id === actionData.alertId) ? <Notice tone="warning">{actionData.message}</Notice> : null}
        {openAlerts.length ? (
          <ul className="mt-3 space-y-3">
            {openAlerts.map((alert) => (
              <li key={alert.id}>
                <Card padding="sm" as="article" data-testid="open-alert" aria-label={alert.title}>
                  <div className="flex flex-wrap items-start justify-between gap-2">
                    <div className="min-w-0">
                      <h3 className="font-semibold text-slate-900">{alert.title}</h3>
                      <p className="text-sm text-slate-600">
                        {alert.ruleWords} · opened <time dateTime={alert.openedAt}>{formatWhen(alert.openedAt)}</time> · last seen{" "}
                        <time dateTime={alert.lastSeenAt}>{formatWhen(alert.lastSeenAt)}</time>
                      </p>
                      {alert.details ? <p className="mt-1 text-sm text-slate-700">{alert.details}</p> : null}
                    </div>
                    <Badge tone={alert.level === "error" ? "danger" : "warning"}>{alert.level === "error" ? "Error" : "Warning"}</Badge>
                  </div>
                  <ResolveForm alert={alert} error={actionData?.alertId === alert.id ? actionData.message : null} />
                </Card>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-3 text-sm text-slate-600" data-testid="no-open-alerts">
            No open alerts.
          </p>
        )}
      </section>

      <section aria-labelledby="metrics-title">
        <h2 id="metrics-title" className="text-lg font-semibold text-slate-900">
          Metrics over {words}
        </h2>
        {series.empty ? (
          <p className="mt-1 text-sm text-slate-600">No samples in {words} yet: each instance samples every minute.</p>
        ) : (
          <p className="mt-1 text-sm text-slate-600">Sampled every minute, Nairobi time; kept 30 days.</p>
        )}
        <div className="mt-3 grid gap-4 lg:grid-cols-2">
          <Card padding="sm">
            <BarChart title="Requests answered" data={series.requests} labelHeader="Time" valueHeader="Requests" />
          </Card>
          <Card padding="sm">
            <LineChart
              title="Server errors (share of requests answered 5xx, %)"
              data={series.errorRate}
              labelHeader="Time"
              valueHeader="%"
            />
          </Card>
          <Card padding="sm">
            <LineChart title="Job queue depth (ready jobs, peak)" data={series.jobsReady} labelHeader="Time" valueHeader="Jobs" />
          </Card>
          <Card padding="sm">
            <LineChart title="Oldest ready job (seconds waited, peak)" data={series.oldestJob} labelHeader="Time" valueHeader="Seconds" />
          </Card>
          <Card padding="sm">
            <BarChart title="Webhook deliveries received" data={series.webhooksReceived} labelHeader="Time" valueHeader="Deliveries" />
          </Card>
          <Card padding="sm">
            <LineChart
              title="Webhook lag (seconds the oldest waited, peak)"
              data={series.webhookLag}
              labelHeader="Time"
              valueHeader="Seconds"
            />
          </Card>
        </div>
      </section>

      <section aria-labelledby="resources-title">
        <h2 id="resources-title" className="text-lg font-semibold text-slate-900">
          Resources per instance
        </h2>
        {series.instances.length ? (
          <div className="mt-3 space-y-4">
            {series.instances.map((instance) => (
              <Card key={instance.id} padding="sm">
                <CardHeader level={3} title={`${instance.hostname} · process ${instance.pid}`} />
                <CardBody className="grid gap-4 md:grid-cols-3">
                  <LineChart title="CPU (% of a core, average)" data={instance.cpu} labelHeader="Time" valueHeader="%" height={140} />
                  <LineChart title="Memory (RSS, MB, average)" data={instance.memoryMb} labelHeader="Time" valueHeader="MB" height={140} />
                  <LineChart
                    title="Event-loop delay (p99, ms, peak)"
                    data={instance.loopDelay}
                    labelHeader="Time"
                    valueHeader="ms"
                    height={140}
                  />
                </CardBody>
              </Card>
            ))}
          </div>
        ) : (
          <p className="mt-1 text-sm text-slate-600">No instance sampled its resources in {words}.</p>
        )}
      </section>

      <section aria-labelledby="database-title">
        <h2 id="database-title" className="text-lg font-semibold text-slate-900">
          Database
        </h2>
        <div className="mt-3 grid gap-4 lg:grid-cols-2">
          <Card padding="sm">
            <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
              <dt className="text-slate-500">Engine</dt>
              <dd className="text-right font-medium">
                {database.kind === "pglite" ? "PGlite (embedded)" : "PostgreSQL"}
                {database.version ? ` ${database.version}` : ""}
              </dd>
              <dt className="text-slate-500">Size</dt>
              <dd className="text-right font-medium" data-testid="database-size">
                {bytes(database.sizeBytes)}
              </dd>
            </dl>
            <h3 className="mt-4 text-sm font-semibold text-slate-900">Connections</h3>
            {database.connections ? (
              <ul className="mt-1 text-sm">
                {database.connections.map((c) => (
                  <li key={c.state} className="flex justify-between">
                    <span className="text-slate-600">{c.state}</span>
                    <span className="font-medium">{c.count}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-1 text-sm text-slate-600">{database.connectionsNote}</p>
            )}
          </Card>
          <Card padding="none">
            <Table
              caption="Largest tables"
              columns={[
                { key: "name", header: "Table", cell: (t) => <code className="text-sm">{t.name}</code> },
                { key: "size", header: "Size", cell: (t) => bytes(t.totalBytes), align: "right" },
                {
                  key: "rows",
                  header: "Rows (estimate)",
                  cell: (t) => (t.rows === null ? "not analysed yet" : formatNumber(t.rows)),
                  align: "right",
                  hideOnPhone: true,
                },
              ]}
              rows={database.tables}
              rowKey={(t) => t.name}
              empty={<p className="p-4 text-sm text-slate-600">The table sizes could not be read.</p>}
            />
          </Card>
        </div>
        <Card padding="sm" className="mt-4">
          <h3 className="text-sm font-semibold text-slate-900">Slowest statements</h3>
          {database.slowest ? (
            <ol className="mt-2 space-y-2 text-sm">
              {database.slowest.map((s, i) => (
                <li key={i}>
                  <code className="block truncate text-xs" title={s.query}>
                    {s.query}
                  </code>
                  <span className="text-slate-600">
                    {s.meanMs} ms on average over {formatNumber(s.calls)} calls
                  </span>
                </li>
              ))}
            </ol>
          ) : (
            <p className="mt-1 text-sm text-slate-600" data-testid="slowest-note">
              {database.slowestNote}
            </p>
          )}
        </Card>
      </section>

      <section aria-labelledby="history-title">
        <h2 id="history-title" className="text-lg font-semibold text-slate-900">
          Alerts in {words}
        </h2>
        <Card padding="none" className="mt-3">
          <Table
            caption={`Alerts opened in ${words}, and any still open`}
            columns={ALERT_COLUMNS}
            rows={alerts}
            rowKey={(a) => a.id}
            empty={<p className="p-4 text-sm text-slate-600">No alerts in {words}.</p>}
          />
        </Card>
        {moreAlerts ? (
          <p className="mt-2 text-sm text-slate-600">The 50 newest are shown; Export Data downloads them all for {words}.</p>
        ) : null}
      </section>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
