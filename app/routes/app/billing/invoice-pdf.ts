import type { Route } from "./+types/invoice-pdf";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { invoiceDocument } from "~/.server/domains/billing/invoices";
import { renderInvoicePdf } from "~/.server/domains/billing/invoice-pdf";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "billing:view" };

/** GET /billing/invoices/<id>/pdf: the invoice or receipt as an A4 PDF download. Another organisation's: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const invoice = await invoiceDocument(current.organization.id, args.params.id);
  if (!invoice) throw new Response("Not Found", { status: 404 });
  const pdf = await renderInvoicePdf(invoice);
  return new Response(Buffer.from(pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${invoice.number}.pdf"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
