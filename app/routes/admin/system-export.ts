import type { Route } from "./+types/system-export";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { alertsInRange } from "~/.server/domains/admin/system/alerts";
import { parseRange, SYSTEM_RANGES } from "~/.server/domains/admin/system/series";

/** Export Data on the System tab: the alerts (open and resolved) of the page's range, streamed a page at a time. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  platformScope(current);
  const { range, error } = parseRange(args.url.searchParams.get("range"));
  if (error) return new Response(error, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return streamedCsv(
    `system_alerts_${range}`,
    ["Opened", "Rule", "About", "Level", "Alert", "Details", "Last seen", "Resolved", "Resolved by", "Resolution"],
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
          a.resolvedAt ? (a.resolvedByEmail ?? "the rule (condition cleared)") : "",
          a.resolution,
        ]);
        cursor = page.next;
      } while (cursor);
    },
  );
}
