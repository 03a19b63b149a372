import type { Route } from "./+types/activity-logs";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { organizationScope } from "~/.server/infrastructure/db/scope";
import { jsonError, methodNotAllowed } from "~/.server/infrastructure/http/json";
import { parseActivityFilter } from "~/.server/domains/activity/filters";
import { activityStats, listActivity } from "~/.server/domains/activity/log-queries";

/**
 * GET /api/activity-logs?type&status&startDate&endDate (or range) [&cursor&limit]: the tenant's
 * records newest first, a page at a time, with the period's counts (spec section 7).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "activity:view");
  const query = args.url.searchParams;
  const parsed = parseActivityFilter(query);
  if (!parsed.ok) return jsonError(400, parsed.message);
  const limit = query.get("limit");
  if (limit !== null && !/^\d{1,4}$/.test(limit)) return jsonError(400, "limit must be a number from 1 to 1000.");
  if (query.get("cursor") && !/^[\w-]{1,120}$/.test(query.get("cursor")!)) return jsonError(400, "cursor is not valid.");
  const scope = organizationScope(current);
  const [page, stats] = await Promise.all([
    listActivity(scope, parsed.filter, { cursor: query.get("cursor"), limit: limit ? Number(limit) : undefined }),
    activityStats(scope, parsed.filter),
  ]);
  return Response.json(
    {
      logs: page.logs,
      nextCursor: page.nextCursor,
      stats,
      period: { start: parsed.filter.start.toISOString(), end: parsed.filter.end.toISOString() },
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}

export function action() {
  return methodNotAllowed("GET");
}
