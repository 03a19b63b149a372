import type { Route } from "./+types/overview-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { ACTIVITY_EXPORT_DAYS, recentActivity } from "~/.server/domains/admin/overview/activity";
import { m } from "~/paraglide/messages";

/** Export Data on the Overview: the recent activity across organisations (the last 30 days), newest first. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const since = new Date(Date.now() - ACTIVITY_EXPORT_DAYS * 86_400_000);
  return streamedCsv(
    "admin_recent_activity",
    [
      m.admin_column_when(),
      m.admin_csv_organisation_id(),
      m.admin_column_organisation(),
      m.admin_templates_column_type(),
      m.admin_column_status(),
      m.admin_column_action(),
      m.admin_user_details(),
    ],
    async function* () {
      let cursor: string | null = null;
      do {
        const page = await recentActivity(scope, { cursor, since, limit: 500 });
        yield page.records.map((r) => [r.createdAt, r.organizationId, r.organizationName, r.type, r.status, r.action, r.details]);
        cursor = page.next;
      } while (cursor);
    },
  );
}
