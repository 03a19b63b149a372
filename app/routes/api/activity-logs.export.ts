import { redirect } from "react-router";
import type { Route } from "./+types/activity-logs.export";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { requestMeta } from "~/.server/http/request-meta";
import { parseActivityFilter } from "~/.server/activity/filters";
import { exportFileName, openActivityCsv } from "~/.server/activity/export";
import { recordActivity } from "~/.server/activity/record";
import { log } from "~/.server/log";

/**
 * GET /api/activity-logs/export: the same query as the list, as a CSV download named
 * activity_logs_{date}.csv, streamed. The Activity page's Export is a plain link to it; when the
 * export fails before it starts, a browser goes back to the page, which says so.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  const url = new URL(request.url);
  const fromPage = request.headers.get("sec-fetch-mode") === "navigate" || (request.headers.get("accept") ?? "").includes("text/html");
  if (!current) return fromPage ? redirect(`/login?from=${encodeURIComponent("/activity")}`) : jsonError(401, STATUS_MESSAGES[401]);
  const back = () => {
    const q = new URLSearchParams(url.search);
    q.set("exportError", "1");
    return redirect(`/activity?${q}`);
  };
  const parsed = parseActivityFilter(url.searchParams);
  if (!parsed.ok) return fromPage ? back() : jsonError(400, parsed.message);
  try {
    const body = await openActivityCsv({ organizationId: current.organization.id }, parsed.filter);
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "security",
      status: "success",
      action: "Activity log exported",
      details: `${parsed.filter.start.toISOString()} to ${parsed.filter.end.toISOString()}${parsed.filter.type ? `, type ${parsed.filter.type}` : ""}${parsed.filter.status ? `, status ${parsed.filter.status}` : ""}`,
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
