import { data, href, redirect } from "react-router";
import type { Route } from "./+types/analytics-ads";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { analyticsAdsPage, tenantAnalyticsFilters } from "~/.server/domains/analytics/page";
import { analyticsQuery, PERIOD_LABELS } from "~/lib/analytics";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { AnalyticsFilterForm } from "~/components/analytics/filter-form";
import { AdsSection, AnalyticsTabs } from "~/components/analytics/ads";
import { periodWords } from "~/components/analytics/words";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Analytics' Ads tab (issue 77): who the period's Click-to-WhatsApp ads brought and what they bought.
// The same filters as the Overview tab; a document without React, like it (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "campaigns:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.app_analytics_ads_title()} | Jumbe` }];

/** The figures by ad for the URL's filters; a refused one shows the default period's and why (400). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const { searchParams, search } = args.url;
  const now = new Date();
  const resolved = await tenantAnalyticsFilters(current.organization.id, searchParams, now);
  // Only what counts stays in the address (the chart is the Overview's).
  const canonical = resolved.ok ? analyticsQuery({ ...resolved.filters, chart: "sent" }) : search;
  if (search && canonical !== search) throw redirect(`${href("/analytics/ads")}${canonical}`);
  const page = await analyticsAdsPage(current.organization.id, searchParams, resolved, now);
  return page.error ? data(page, { status: 400 }) : page;
}

export default function AnalyticsAds({ loaderData }: Route.ComponentProps) {
  const { filters, error, form } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.app_analytics_title()}</PageTitle>
        <p className="mt-1 text-slate-600" data-testid="analytics-period">
          {periodWords(filters)}
        </p>
      </div>
      <AnalyticsTabs filters={filters} current="ads" />
      {error ? (
        <Notice tone="warning" title={m.app_analytics_refused()}>
          {error} {m.app_analytics_showing_instead({ period: PERIOD_LABELS[filters.period].toLowerCase() })}
        </Notice>
      ) : null}
      <AnalyticsFilterForm form={form} numbers={loaderData.numbers} chart="sent" />
      <AdsSection figures={loaderData.ads} filters={filters} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
