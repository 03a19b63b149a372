import type { Route } from "./+types/analytics-payments-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { analyticsCsvDownload } from "~/.server/domains/analytics/csv-download";
import { paymentFigures, paymentsCsv } from "~/.server/domains/analytics/payments";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "campaigns:view" };

/**
 * GET /analytics/payments.csv: the Analytics page's Payments section for the same query (totals, then
 * every agent, flow and campaign), formula-safe. A query the page refuses is refused here (400, in words).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const organizationId = current.organization.id;
  return analyticsCsvDownload(organizationId, args.url.searchParams, "payments", async ({ filters, start, end }) =>
    paymentsCsv(
      await paymentFigures(organizationId, {
        start,
        end,
        number: filters.number,
        goneName: m.app_analytics_payments_gone,
        top: Number.POSITIVE_INFINITY,
      }),
    ),
  );
}

export function action() {
  return methodNotAllowed("GET");
}
