import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";

/**
 * The programme's ledger (issue 46, decision 086; written where the money is since issue 72, decision
 * 102): each paid tax invoice (INV) of an organisation a partner brought becomes one transaction, its
 * amount net of VAT split by the share in effect when it was paid; each credit note against such an
 * invoice reverses its part at the same share. A postpaid receipt (RCT, money on account) earns
 * nothing itself: the monthly tax invoice it pays earns when paid. The database writes these rows in
 * the transaction that pays the invoice or issues the credit note (the trigger of migration 0057,
 * functions `partner_ledger_record` and `partner_ledger_reverse`), unique per invoice: no job, no
 * time window, so a payment is counted once whenever it happened and whoever recorded it.
 */

/** A partner's part of `amountCents` at `shareBps`, rounded half away from zero, to the cent. */
export function partnerPart(amountCents: number, shareBps: number) {
  const part = Math.round((Math.abs(amountCents) * shareBps) / 10_000);
  return amountCents < 0 ? -part : part;
}

/**
 * Records what the trigger could not: the paid invoices and credit notes of attributed organisations
 * written before their attribution was (the demo seed writes a tenant's months of billing before the
 * partner that brought it). Each earns or not as the trigger would have decided at its payment
 * (attribution, partner and share of that moment). Answers how many transactions it recorded.
 */
export async function recordUnrecordedInvoices(executor: Executor = db()) {
  const rows = await queryRows<{ recorded: number }>(
    executor,
    sql`
    select coalesce(sum(partner_ledger_record(i.id)), 0)::int as recorded from (
      select i.id from invoices i
      where i.paid_at is not null and not exists (select 1 from partner_transactions t where t.invoice_id = i.id)
        and exists (select 1 from partner_attributions a where a.organization_id = i.organization_id)
      order by i.paid_at, i.id) i`,
  );
  return Number(rows[0]?.recorded ?? 0);
}
