import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { m } from "~/paraglide/messages";

/** Bank transfers awaiting reconciliation, oldest first (invoices_unreconciled_bank_idx): what to look for on the statement. */
export async function unreconciledTransfers(_scope: PlatformScope, limit = 50) {
  const rows = await queryRows<{
    id: string;
    number: string;
    organization_id: string;
    business: string | null;
    total_cents: string | number;
    issued_at: string | Date;
    due_at: string | Date | null;
    payment_reference: string | null;
    status: string;
  }>(
    db(),
    sql`
    select i.id, i.number, i.organization_id, o.name as business, i.total_cents, i.issued_at, i.due_at, i.payment_reference, i.status
    from invoices i left join organizations o on o.id = i.organization_id
    where i.status in ('pending', 'overdue') and i.reconciled = false and (i.kind = 'bank_transfer' or i.payment_method = 'bank')
    order by i.issued_at limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    invoiceNumber: r.number,
    organizationId: r.organization_id,
    businessName: r.business ?? m.admin_erased_organisation(),
    amountCents: Number(r.total_cents),
    issuedAt: new Date(r.issued_at).toISOString(),
    dueAt: r.due_at ? new Date(r.due_at).toISOString() : null,
    reference: r.payment_reference,
    status: r.status,
  }));
}
