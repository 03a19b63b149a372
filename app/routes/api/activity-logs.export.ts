import { redirect } from "react-router";
import type { Route } from "./+types/activity-logs.export";
import { isNavigation, requireDeclaredResource } from "~/.server/domains/auth/guards";
import type { PermissionHandle } from "~/lib/permissions";
import { organizationScope } from "~/.server/infrastructure/db/scope";
import { jsonError, methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { parseActivityFilter } from "~/.server/domains/activity/filters";
import { exportFileName, exportRangeDetails, openActivityCsv } from "~/.server/domains/activity/export";
import { recordActivity } from "~/.server/domains/activity/record";
import { log } from "~/.server/infrastructure/log";

/**
 * GET /api/activity-logs/export: the same query as the list, as a CSV download named
 * activity_logs_{date}.csv, streamed. The Activity page's Export is a plain link to it; when the
 * export fails before it starts, a browser goes back to the page, which says so.
 */
// Outside the signed-in layouts (the JSON API's address), so no middleware checks it: its loader
// does, by this declaration (decision 055). A signed-out browser signs in and comes back to the page.
export const handle: PermissionHandle = { permission: "activity:export", signInReturnsTo: "/activity" };

export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireDeclaredResource(args);
  const fromPage = isNavigation(args);
  const back = () => {
    const q = new URLSearchParams(url.search);
    q.set("exportError", "1");
    return redirect(`/activity?${q}`);
  };
  const parsed = parseActivityFilter(url.searchParams);
  if (!parsed.ok) return fromPage ? back() : jsonError(400, parsed.message);
  try {
    const body = await openActivityCsv(organizationScope(current), parsed.filter);
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "security",
      status: "success",
      action: "Activity log exported",
      details: exportRangeDetails(parsed.filter),
      meta: requestMeta(request, context),
    });
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${exportFileName()}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (error) {
    log().error({ err: error }, "activity export failed");
    return fromPage ? back() : jsonError(500, "Failed to export activity logs. Please try again.");
  }
}

export function action() {
  return methodNotAllowed("GET");
}
