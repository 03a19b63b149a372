import type { Route } from "./+types/users-export";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { allUserRows, readUserFilters } from "~/.server/domains/admin/users/list";
import { nairobiDate } from "~/lib/dates";

/** Export Data on the Users tab: the table with the page's search, filters and order, every page. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const { filters } = readUserFilters(args.url.searchParams);
  return streamedCsv(
    "admin_users",
    [
      "Organisation ID",
      "Business",
      "Business ID",
      "E-mail",
      "Plan",
      "Billing",
      "Status",
      "Messages this month",
      "Message limit",
      "Revenue (KES)",
      "Joined",
      "Last active",
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
