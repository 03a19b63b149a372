import type { PermissionHandle } from "~/lib/permissions";
import { data } from "react-router";
import type { Route } from "./+types/invoice-pdf";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminInvoice } from "~/.server/domains/admin/billing/invoice-detail";
import { renderInvoicePdf } from "~/.server/domains/billing/invoice-pdf";

// Money: the console's owners and finance staff (issue 74, decision 112); 404 to support staff.
export const handle: PermissionHandle = { permission: "platform:money" };

/** GET /admin/billing/invoices/<id>/pdf: any organisation's invoice as the same A4 PDF its tenant downloads. Unknown: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const invoice = await adminInvoice(platformScope(current), args.params.id);
  if (!invoice) throw data("Not Found", { status: 404 });
  const pdf = await renderInvoicePdf(invoice.document);
  return new Response(Buffer.from(pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${invoice.document.number}.pdf"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
