import type { Route } from "./+types/users-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { allUserRows, readUserFilters } from "~/.server/domains/admin/users/list";
import { nairobiDate } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** Export Data on the Users tab: the table with the page's search, filters and order, every page. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const { filters } = readUserFilters(args.url.searchParams);
  return streamedCsv(
    "admin_users",
    [
      m.admin_csv_organisation_id(),
      m.admin_column_business(),
      m.admin_template_business_id(),
      m.admin_email(),
      m.admin_column_plan(),
      m.admin_csv_billing(),
      m.admin_column_status(),
      m.admin_messages_this_month(),
      m.admin_user_form_limit(),
      m.admin_csv_revenue_kes(),
      m.admin_column_joined(),
      m.admin_users_column_last_active(),
    ],
    async function* () {
      for await (const rows of allUserRows(scope, { ...filters, page: 1 }))
        yield rows.map((r) => [
          r.id,
          r.businessName,
          r.businessId,
          r.email,
          r.plan,
          r.billingType,
          r.status,
          r.messagesUsed,
          r.messageLimit,
          (r.revenueCents / 100).toFixed(2),
          nairobiDate(new Date(r.joinDate)),
          r.lastActive,
        ]);
    },
  );
}
