import type { Route } from "./+types/analytics-ads-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { tenantAnalyticsFilters } from "~/.server/domains/analytics/page";
import { adFigures, adsCsv } from "~/.server/domains/analytics/ads";
import { analyticsRange } from "~/.server/domains/analytics/report";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "campaigns:view" };

const HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/**
 * GET /analytics/ads.csv: the Analytics page's Ads tab for the same query (totals, then every ad and
 * every source type), formula-safe. A query the page refuses is refused here (400, in words).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const resolved = await tenantAnalyticsFilters(current.organization.id, args.url.searchParams);
  if (!resolved.ok)
    return new Response(`${resolved.error}\n`, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8", ...HEADERS } });
  const { start, end } = analyticsRange(resolved.filters);
  const figures = await adFigures(current.organization.id, { start, end, number: resolved.filters.number, top: Number.POSITIVE_INFINITY });
  const { from, to } = resolved.filters;
  return new Response(adsCsv(figures), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="jumbe-ads-${from}-to-${to}.csv"`,
      ...HEADERS,
    },
  });
}

export function action() {
  return methodNotAllowed("GET");
}
