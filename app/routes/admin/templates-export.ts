import type { Route } from "./+types/templates-export";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { adminTemplatePage, readAdminTemplateFilters } from "~/.server/domains/admin/templates/queries";
import { categoryLabel, languageLabel, templateStatusLabel } from "~/lib/templates";

/** The Templates tab's table as CSV (Export Data), with the page's filters and sort, one keyset page at a time. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const filters = readAdminTemplateFilters(args.url.searchParams);
  return streamedCsv(
    "templates",
    ["Template ID", "Name", "Business", "Organisation ID", "Type", "Status", "Submitted", "Language"],
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
