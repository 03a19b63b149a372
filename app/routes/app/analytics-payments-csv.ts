import type { Route } from "./+types/analytics-payments-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { tenantAnalyticsFilters } from "~/.server/domains/analytics/page";
import { paymentFigures, paymentsCsv } from "~/.server/domains/analytics/payments";
import { analyticsRange } from "~/.server/domains/analytics/report";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "campaigns:view" };

const HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/**
 * GET /analytics/payments.csv: the Analytics page's Payments section for the same query (totals, then
 * every agent, flow and campaign), formula-safe. A query the page refuses is refused here (400, in words).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const resolved = await tenantAnalyticsFilters(current.organization.id, args.url.searchParams);
  if (!resolved.ok)
    return new Response(`${resolved.error}\n`, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8", ...HEADERS } });
  const { start, end } = analyticsRange(resolved.filters);
  const figures = await paymentFigures(current.organization.id, {
    start,
    end,
    number: resolved.filters.number,
    goneName: m.app_analytics_payments_gone,
    top: Number.POSITIVE_INFINITY,
  });
  const { from, to } = resolved.filters;
  return new Response(paymentsCsv(figures), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="jumbe-payments-${from}-to-${to}.csv"`,
      ...HEADERS,
    },
  });
}

export function action() {
  return methodNotAllowed("GET");
}
