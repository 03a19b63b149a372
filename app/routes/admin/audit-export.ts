import type { Route } from "./+types/audit-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAuditPage } from "~/.server/domains/admin/audit";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { m } from "~/paraglide/messages";

/** The audit log as CSV (Export Data on the Audit log tab), one organisation's when ?org= is given; its headings in the request's language, the records as stored. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const organizationId = args.url.searchParams.get("org");
  return streamedCsv(
    "admin_audit_log",
    [
      m.admin_column_when(),
      m.admin_audit_column_admin(),
      m.admin_column_action(),
      m.admin_csv_organisation_id(),
      m.admin_column_organisation(),
      m.admin_csv_target(),
      m.admin_csv_target_id(),
      m.admin_reason(),
      m.admin_csv_before(),
      m.admin_csv_after(),
      m.admin_csv_ip_address(),
      m.admin_csv_user_agent(),
    ],
    async function* () {
      let cursor: string | null = null;
      do {
        const page = await adminAuditPage(scope, { organizationId, cursor, limit: 200 });
        yield page.records.map((r) => [
          r.createdAt,
          r.adminEmail,
          r.action,
          r.organizationId,
          r.organizationName,
          r.targetType,
          r.targetId,
          r.reason,
          r.before === null ? "" : JSON.stringify(r.before),
          r.after === null ? "" : JSON.stringify(r.after),
          r.ipAddress,
          r.userAgent,
        ]);
        cursor = page.next;
      } while (cursor);
    },
  );
}
