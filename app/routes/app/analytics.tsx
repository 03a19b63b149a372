import { data, href, redirect } from "react-router";
import type { Route } from "./+types/analytics";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { analyticsPage, tenantAnalyticsFilters } from "~/.server/domains/analytics/page";
import { analyticsQuery, PERIOD_LABELS, type AnalyticsFilters } from "~/lib/analytics";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { AnalyticsFilterForm } from "~/components/analytics/filter-form";
import { AutomationCards, FigureCards } from "~/components/analytics/figure-cards";
import { AnalyticsReportView } from "~/components/analytics/report";
import { PaymentsSection } from "~/components/analytics/payments";
import { AnalyticsTabs } from "~/components/analytics/ads";
import { periodWords } from "~/components/analytics/words";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Advanced Analytics: everyone who sees the campaigns' results. Figures, charts drawn on the server
// and links: sent as a document without React (decision 066); another series is a link.
export const handle: PermissionHandle & PageHandle = { permission: "campaigns:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.app_analytics_title()} | Jumbe` }];

/** Advanced Analytics (spec section 2): every filter in the URL; a refused one shows the default period's figures and why (400). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const { searchParams, search } = args.url;
  const now = new Date();
  const resolved = await tenantAnalyticsFilters(current.organization.id, searchParams, now);
  // The form sends every field (the dates for any period, an empty number): the address it lands on says only what counts.
  const canonical = resolved.ok ? analyticsQuery(resolved.filters) : search;
  if (search && canonical !== search) throw redirect(`${href("/analytics")}${canonical}`);
  const page = await analyticsPage(current.organization.id, searchParams, now, resolved);
  return page.error ? data(page, { status: 400 }) : page;
}

export default function Analytics({ loaderData }: Route.ComponentProps) {
  const { report, error, form } = loaderData;
  const { filters, cards } = report;
  // The series shown: the URL's (each series is a link).
  const chart = filters.chart;
  const pageHref = (change: Partial<AnalyticsFilters> = {}) => `${href("/analytics")}${analyticsQuery({ ...filters, chart }, change)}`;
  const empty = (cards.sent.value ?? 0) + (cards.received.value ?? 0) + (cards.failed.value ?? 0) === 0;

  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.app_analytics_title()}</PageTitle>
        <p className="mt-1 text-slate-600" data-testid="analytics-period">
          {periodWords(filters)}
        </p>
      </div>

      <AnalyticsTabs filters={filters} current="overview" />

      {error ? (
        <Notice tone="warning" title={m.app_analytics_refused()}>
          {error} {m.app_analytics_showing_instead({ period: PERIOD_LABELS[filters.period].toLowerCase() })}
        </Notice>
      ) : null}

      <AnalyticsFilterForm form={form} numbers={report.numbers} chart={chart} />

      <FigureCards report={report} filters={filters} />

      <AutomationCards figures={loaderData.automations} />

      <AnalyticsReportView report={report} filters={filters} chart={chart} empty={empty} pageHref={pageHref} />

      <PaymentsSection figures={loaderData.payments} filters={filters} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
