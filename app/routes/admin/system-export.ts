import type { Route } from "./+types/system-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { alertsInRange } from "~/.server/domains/admin/system/alerts";
import { parseRange, SYSTEM_RANGES } from "~/.server/domains/admin/system/series";
import { m } from "~/paraglide/messages";

/** Export Data on the System tab: the alerts (open and resolved) of the page's range, streamed a page at a time. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  platformScope(current);
  const { range, error } = parseRange(args.url.searchParams.get("range"));
  if (error) return new Response(error, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return streamedCsv(
    `system_alerts_${range}`,
    [
      m.admin_csv_opened(),
      m.admin_alerts_column_rule(),
      m.admin_csv_about(),
      m.admin_alerts_column_level(),
      m.admin_alerts_column_alert(),
      m.admin_user_details(),
      m.admin_csv_last_seen(),
      m.admin_csv_resolved(),
      m.admin_csv_resolved_by(),
      m.admin_csv_resolution(),
    ],
    async function* () {
      let cursor: { openedAt: string; id: string } | null = null;
      do {
        const page = await alertsInRange({ sinceHours: SYSTEM_RANGES[range].hours, cursor, limit: 200 });
        yield page.alerts.map((a) => [
          a.openedAt,
          a.ruleWords,
          a.key,
          a.level,
          a.title,
          a.details,
          a.lastSeenAt,
          a.resolvedAt,
          a.resolvedAt ? (a.resolvedByEmail ?? m.admin_csv_resolved_by_rule()) : "",
          a.resolution,
        ]);
        cursor = page.next;
      } while (cursor);
    },
  );
}
