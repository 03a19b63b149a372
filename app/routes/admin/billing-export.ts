import type { PermissionHandle } from "~/lib/permissions";
import type { Route } from "./+types/billing-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { adminInvoicePage, parseInvoiceFilters } from "~/.server/domains/admin/billing/invoice-table";
import { invoicePaymentWords } from "~/lib/admin-billing";
import { invoiceStatusWords } from "~/lib/invoice-document";
import type { InvoiceStatus } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

// Money: the console's owners and finance staff (issue 74, decision 112); 404 to support staff.
export const handle: PermissionHandle = { permission: "platform:money" };

/**
 * Export Data on the Billing tab: the invoice table with the page's search, filters and order, streamed
 * page by page. Codes and words are separate columns: the status as stored, then in words.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const filters = parseInvoiceFilters(args.url.searchParams);
  return streamedCsv(
    "admin_invoices",
    [
      m.admin_csv_invoice_number(),
      m.admin_column_business(),
      m.admin_billing_column_email(),
      m.admin_column_plan(),
      m.admin_csv_amount_kes(),
      m.admin_column_issued(),
      m.admin_billing_column_due(),
      m.admin_billing_column_paid(),
      m.admin_csv_status_code(),
      m.admin_column_status(),
      m.admin_billing_column_method(),
      m.admin_csv_credited_kes(),
      m.admin_billing_column_reconciled(),
      m.admin_csv_organisation_id(),
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
          // The stored code (paid, pending, …) for a program; its words, with a credit note's story, for a reader.
          r.status,
          invoiceStatusWords({ status: r.status as InvoiceStatus, credited: { cents: r.creditedCents } }),
          invoicePaymentWords(r) ?? "",
          (r.creditedCents / 100).toFixed(2),
          r.reconciled ? m.admin_csv_yes() : m.admin_csv_no(),
          r.organizationId,
        ]);
        after = page.next;
      } while (after);
    },
  );
}
