import type { Route } from "./+types/analytics-ads-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { analyticsCsvDownload } from "~/.server/domains/analytics/csv-download";
import { adFigures, adsCsv } from "~/.server/domains/analytics/ads";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "campaigns:view" };

/**
 * GET /analytics/ads.csv: the Analytics page's Ads tab for the same query (totals, then every ad and
 * every source type), formula-safe. A query the page refuses is refused here (400, in words).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const organizationId = current.organization.id;
  return analyticsCsvDownload(organizationId, args.url.searchParams, "ads", async ({ filters, start, end }) =>
    adsCsv(await adFigures(organizationId, { start, end, number: filters.number, top: Number.POSITIVE_INFINITY })),
  );
}

export function action() {
  return methodNotAllowed("GET");
}
