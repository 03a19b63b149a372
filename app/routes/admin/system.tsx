import { data } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/system";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { resolveAlertAction, systemPage } from "~/.server/domains/admin/system/page";
import { SYSTEM_RANGES } from "~/lib/system-ranges";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { Notice } from "~/components/ui/notice";
import { Table } from "~/components/ui/table";
import { alertColumns, InstanceCard, RangeSelector, ResolveForm, ServiceCard } from "~/components/admin/system/system-parts";
import { DatabaseSection, MetricsSection, ResourcesSection } from "~/components/admin/system/system-sections";
import { formatWhen } from "~/lib/dates";
import { adminIntent, adminIntentAction } from "~/.server/domains/admin/form-actions";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_tab_system() }) }];

/**
 * The System tab (issue 19): health cards from real probes (cached a few seconds in this process:
 * app/.server/domains/admin/system/probes.ts says why), metric_samples charted over the chosen range, each
 * instance's resources, database statistics, and the alerts with Resolve. Everything is a link or a
 * POST form: it works without JavaScript.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const page = await systemPage(platformScope(current), args.url.searchParams);
  return data(page, { status: page.rangeError ? 400 : 200, headers: { "Cache-Control": "no-store" } });
}

export async function action(args: Route.ActionArgs) {
  return adminIntentAction(args, {
    permission: "platform:console",
    intents: {
      // The alert's id and note are read through the domain's own schema (ResolveAlertForm).
      resolve: adminIntent(z.object({}), async ({ form, user }) => {
        platformScope(user);
        const outcome = await resolveAlertAction(user, requestMeta(args.request, args.context), form);
        if (!outcome.ok) return data({ alertId: outcome.alertId, message: outcome.message }, { status: outcome.status });
        return redirectWithToast(`${args.url.pathname}${args.url.search}#alerts`, "success", outcome.message);
      }),
    },
    unknown: () => data({ alertId: "", message: m.admin_unknown_action() }, { status: 400 }),
  });
}

export default function AdminSystem({ loaderData, actionData }: Route.ComponentProps) {
  const { range, rangeError, health, series, database, replica, openAlerts, alerts, moreAlerts } = loaderData;
  const words = SYSTEM_RANGES[range].words;
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <PageTitle>{m.admin_tab_system()}</PageTitle>
          <p className="mt-1 text-slate-600">{m.admin_system_intro()}</p>
        </div>
        <RangeSelector range={range} />
      </div>
      {rangeError ? <Notice tone="warning">{rangeError}</Notice> : null}

      <section aria-labelledby="health-title">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="health-title" className="text-lg font-semibold text-slate-900">
            {m.admin_system_health()}
          </h2>
          <p className="text-sm text-slate-600">
            {m.admin_system_probed()} <time dateTime={health.checkedAt}>{formatWhen(health.checkedAt)}</time>{" "}
            {health.cached ? m.admin_system_probed_by_cached() : m.admin_system_probed_by()}{" "}
            <TextLink to={`?range=${range}&probe=now`} preventScrollReset>
              {m.admin_system_probe_again()}
            </TextLink>
          </p>
        </div>
        <div className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {health.services.map((probe) => (
            <ServiceCard key={probe.service} probe={probe} />
          ))}
        </div>
        <h3 className="mt-6 font-semibold text-slate-900">{m.admin_system_instances()}</h3>
        {health.instances.length ? (
          <div className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {health.instances.map((instance) => (
              <InstanceCard key={instance.id} instance={instance} />
            ))}
          </div>
        ) : (
          <p className="mt-2 text-sm text-slate-600">{m.admin_system_no_instances()}</p>
        )}
      </section>

      <section aria-labelledby="alerts-title" id="alerts">
        <h2 id="alerts-title" className="text-lg font-semibold text-slate-900">
          {m.admin_system_open_alerts()}
        </h2>
        <p className="mt-1 text-sm text-slate-600">{m.admin_system_alerts_intro()}</p>
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
                        {alert.ruleWords} · {m.admin_system_alert_opened()}{" "}
                        <time dateTime={alert.openedAt}>{formatWhen(alert.openedAt)}</time> · {m.admin_system_alert_last_seen()}{" "}
                        <time dateTime={alert.lastSeenAt}>{formatWhen(alert.lastSeenAt)}</time>
                      </p>
                      {alert.details ? <p className="mt-1 text-sm text-slate-700">{alert.details}</p> : null}
                    </div>
                    <Badge tone={alert.level === "error" ? "danger" : "warning"}>
                      {alert.level === "error" ? m.admin_level_error() : m.admin_level_warning()}
                    </Badge>
                  </div>
                  <ResolveForm alert={alert} error={actionData?.alertId === alert.id ? actionData.message : null} />
                </Card>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-3 text-sm text-slate-600" data-testid="no-open-alerts">
            {m.admin_no_open_alerts()}
          </p>
        )}
      </section>

      <MetricsSection series={series} words={words} />
      <ResourcesSection series={series} words={words} />
      <DatabaseSection database={database} replica={replica} />

      <section aria-labelledby="history-title">
        <h2 id="history-title" className="text-lg font-semibold text-slate-900">
          {m.admin_system_alerts_in({ range: words })}
        </h2>
        <Card padding="none" className="mt-3">
          <Table
            caption={m.admin_system_alerts_caption({ range: words })}
            columns={alertColumns()}
            rows={alerts}
            rowKey={(a) => a.id}
            empty={<p className="p-4 text-sm text-slate-600">{m.admin_system_alerts_empty({ range: words })}</p>}
          />
        </Card>
        {moreAlerts ? <p className="mt-2 text-sm text-slate-600">{m.admin_system_alerts_more({ range: words })}</p> : null}
      </section>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
