import type { Route } from "./+types/billing.invoices";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { jsonError, methodNotAllowed } from "~/.server/infrastructure/http/json";
import { listInvoices } from "~/.server/domains/billing/invoices";
import { INVOICE_STATUSES } from "~/.server/infrastructure/db/schema/billing";

/** GET /api/billing/invoices[?status=paid|pending|overdue|disputed]: the organisation's invoices and receipts, newest first. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "billing:view");
  const status = args.url.searchParams.get("status");
  if (status !== null && !(INVOICE_STATUSES as readonly string[]).includes(status))
    return jsonError(400, "status must be paid, pending, overdue, disputed or void.");
  const invoices = await listInvoices(current.organization.id, {
    status: (status as (typeof INVOICE_STATUSES)[number]) ?? undefined,
    limit: 200,
  });
  return Response.json(
    { invoices: invoices.map((i) => ({ ...i, amount: i.totalCents / 100, currency: "KES", pdf: `/billing/invoices/${i.id}/pdf` })) },
    { headers: { "Cache-Control": "no-store" } },
  );
}

export function action() {
  return methodNotAllowed("GET");
}
