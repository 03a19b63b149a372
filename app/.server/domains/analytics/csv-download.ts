import type { AnalyticsFilters } from "~/lib/analytics";
import { badQueryText, csvDownload } from "../../infrastructure/http/download";
import { analyticsRange } from "./report";
import { tenantAnalyticsFilters } from "./page";

/** The period and number an analytics CSV is made for: the page's filters, and their range. */
export interface AnalyticsCsvQuery {
  filters: AnalyticsFilters;
  start: Date;
  end: Date;
}

/**
 * An Analytics CSV download (the daily table, payments, ads) for the page's query: a query the page
 * refuses is refused here (400, in words); else `build` makes the CSV, saved as
 * `jumbe-<name>-<from>-to-<to>.csv`, never cached.
 */
export async function analyticsCsvDownload(
  organizationId: string,
  params: URLSearchParams,
  name: string,
  build: (query: AnalyticsCsvQuery) => Promise<string>,
): Promise<Response> {
  const resolved = await tenantAnalyticsFilters(organizationId, params);
  if (!resolved.ok) return badQueryText(resolved.error);
  const { start, end } = analyticsRange(resolved.filters);
  const body = await build({ filters: resolved.filters, start, end });
  const { from, to } = resolved.filters;
  return csvDownload(`jumbe-${name}-${from}-to-${to}.csv`, body);
}
