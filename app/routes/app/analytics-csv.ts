import type { Route } from "./+types/analytics-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { analyticsCsvDownload } from "~/.server/domains/analytics/csv-download";
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
  const organizationId = current.organization.id;
  return analyticsCsvDownload(organizationId, args.url.searchParams, "analytics", async ({ filters }) =>
    dailyCsv(await analyticsReport(organizationId, filters)),
  );
}

export function action() {
  return methodNotAllowed("GET");
}
