import type { Route } from "./+types/templates-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { adminTemplatePage, readAdminTemplateFilters } from "~/.server/domains/admin/templates/queries";
import { categoryLabel, languageLabel, templateStatusLabel } from "~/lib/templates";
import { m } from "~/paraglide/messages";

/** The Templates tab's table as CSV (Export Data), with the page's filters and sort, one keyset page at a time. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const filters = readAdminTemplateFilters(args.url.searchParams);
  return streamedCsv(
    "templates",
    [
      m.admin_csv_template_id(),
      m.admin_templates_column_name(),
      m.admin_column_business(),
      m.admin_csv_organisation_id(),
      m.admin_templates_column_type(),
      m.admin_column_status(),
      m.admin_template_submitted(),
      m.admin_templates_column_language(),
    ],
    async function* () {
      let after: string | null = null;
      do {
        const page = await adminTemplatePage(scope, filters, { after }, 500);
        yield page.rows.map((r) => [
          r.id,
          r.name,
          r.business,
          r.organizationId,
          categoryLabel(r.category),
          templateStatusLabel(r.status),
          r.submittedAt,
          languageLabel(r.language),
        ]);
        after = page.older;
      } while (after);
    },
  );
}
