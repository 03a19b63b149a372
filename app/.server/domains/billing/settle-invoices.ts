import { sql } from "drizzle-orm";
import { changeWallet, walletState } from "./ledger";
import { AMOUNT_DUE_SQL } from "./invoices";
import { WALLET_REFERENCE } from "~/lib/invoice-document";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

/**
 * Pays the organisation's open monthly invoices (pending or overdue, not disputed) from its wallet,
 * oldest first, while the available balance covers the next one whole (what it still owes: its total
 * less any credit note against it). Answers how many were paid.
 */
export async function payOpenInvoicesFromWallet(tx: Executor, organizationId: string) {
  // The wallet first, then the invoices: the order every billing transaction locks them in, so two never wait on each other.
  let { availableCents } = await walletState(tx, organizationId, { lock: true });
  const open = await queryRows<{ id: string; number: string; total_cents: number | string }>(
    tx,
    sql`
      select i.id, i.number, ${AMOUNT_DUE_SQL} as total_cents from invoices i
      where i.organization_id = ${organizationId} and i.kind = 'subscription' and i.status in ('pending', 'overdue')
      order by i.issued_at, i.number
      for update`,
  );
  if (!open.length) return 0;
  let paid = 0;
  for (const invoice of open) {
    const total = Number(invoice.total_cents);
    if (total > availableCents) break;
    const entry = await changeWallet(tx, {
      organizationId,
      kind: "invoice_payment",
      amountCents: -total,
      invoiceId: invoice.id,
      description: `Invoice ${invoice.number} paid from the wallet`,
    });
    if (!entry) break;
    availableCents = entry.balanceAfterCents - entry.heldAfterCents;
    await tx.execute(sql`
      update invoices set status = 'paid', paid_at = now(), payment_reference = coalesce(payment_reference, ${WALLET_REFERENCE})
      where id = ${invoice.id}`);
    paid++;
  }
  return paid;
}
