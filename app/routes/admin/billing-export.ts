import type { Route } from "./+types/billing-export";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { adminInvoicePage, parseInvoiceFilters } from "~/.server/domains/admin/billing/invoice-table";
import { adminInvoiceStatusWords, invoicePaymentWords } from "~/lib/admin-billing";

/** Export Data on the Billing tab: the invoice table with the page's search, filters and order, streamed page by page. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const filters = parseInvoiceFilters(args.url.searchParams);
  return streamedCsv(
    "admin_invoices",
    [
      "Invoice number",
      "Business",
      "Email",
      "Plan",
      "Amount (KES)",
      "Issued",
      "Due date",
      "Paid date",
      "Status",
      "Payment method",
      "Credited (KES)",
      "Reconciled",
      "Organisation ID",
    ],
    async function* () {
      let after: string | null = null;
      do {
        const page = await adminInvoicePage(scope, filters, { after }, 500);
        yield page.rows.map((r) => [
          r.invoiceNumber,
          r.businessName,
          r.email,
          r.plan,
          (r.amountCents / 100).toFixed(2),
          r.issuedAt,
          r.dueDate,
          r.paidDate,
          adminInvoiceStatusWords(r),
          invoicePaymentWords(r) ?? "",
          (r.creditedCents / 100).toFixed(2),
          r.reconciled ? "yes" : "no",
          r.organizationId,
        ]);
        after = page.next;
      } while (after);
    },
  );
}
