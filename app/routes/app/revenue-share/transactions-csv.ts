import type { Route } from "./+types/transactions-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { parseTransactionFilters, transactionPage } from "~/.server/domains/revenue-share/read";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "platform:money" };

/** GET /revenue-share/transactions.csv: the Transactions tab's rows for its filters, every page (keyset), amounts in KES. */
export async function loader(args: Route.LoaderArgs) {
  await requireDeclaredResource(args);
  const filters = parseTransactionFilters(args.url.searchParams);
  const kes = (cents: number) => (cents / 100).toFixed(2);
  return streamedCsv(
    "partner_transactions",
    [
      m.revenue_column_date(),
      m.revenue_column_partner(),
      m.revenue_column_client(),
      m.revenue_column_kind(),
      m.revenue_csv_document(),
      m.revenue_csv_amount(),
      m.revenue_column_share(),
      m.revenue_csv_partner(),
      m.revenue_csv_platform(),
      m.revenue_csv_settled(),
    ],
    async function* () {
      let after: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof transactionPage>> = await transactionPage(filters, { after }, 1000);
        if (!page.rows.length) return;
        yield page.rows.map((r) => [
          r.occurredAt,
          r.partnerName,
          r.clientName,
          r.kind,
          r.documentNumber,
          kes(r.amountCents),
          r.shareBps / 100,
          kes(r.partnerCents),
          kes(r.platformCents),
          r.settled ? "yes" : "no",
        ]);
        after = page.older;
      } while (after);
    },
  );
}

export function action() {
  return methodNotAllowed("GET");
}
