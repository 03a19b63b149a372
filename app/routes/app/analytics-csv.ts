import type { Route } from "./+types/analytics-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { tenantAnalyticsFilters } from "~/.server/domains/analytics/page";
import { analyticsReport, dailyCsv } from "~/.server/domains/analytics/report";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "campaigns:view" };

/**
 * GET /analytics/daily.csv: the Analytics page's daily table (hourly for the 24-hour period) for the
 * same query, as a formula-safe CSV download. A query the page refuses is refused here (400, in words).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const resolved = await tenantAnalyticsFilters(current.organization.id, args.url.searchParams);
  if (!resolved.ok)
    return new Response(`${resolved.error}\n`, {
      status: 400,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
    });
  const report = await analyticsReport(current.organization.id, resolved.filters);
  const { from, to } = report.filters;
  return new Response(dailyCsv(report), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="jumbe-analytics-${from}-to-${to}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

export function action() {
  return methodNotAllowed("GET");
}
