import type { Route } from "./+types/audit-export";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAuditPage } from "~/.server/domains/admin/audit";
import { streamedCsv } from "~/.server/domains/admin/csv-export";

/** The audit log as CSV (Export Data on the Audit log tab), one organisation's when ?org= is given. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const organizationId = args.url.searchParams.get("org");
  return streamedCsv(
    "admin_audit_log",
    [
      "When",
      "Administrator",
      "Action",
      "Organisation ID",
      "Organisation",
      "Target",
      "Target ID",
      "Reason",
      "Before",
      "After",
      "IP address",
      "User agent",
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
