import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { countAffected } from "../../infrastructure/db/query";

/**
 * The programme's ledger (issue 46, decision 086): each paid invoice of an organisation a partner
 * brought becomes one transaction, its amount net of VAT split by the share in effect when it was
 * paid; each credit note against such an invoice reverses its part with the same share. Recorded
 * by one statement for many invoices, unique per invoice, so running it again (after a crash, on
 * another instance, before a settlement) never counts a payment twice.
 */

/** A partner's part of `amountCents` at `shareBps`, rounded half away from zero, to the cent. */
export function partnerPart(amountCents: number, shareBps: number) {
  const part = Math.round((Math.abs(amountCents) * shareBps) / 10_000);
  return amountCents < 0 ? -part : part;
}

/**
 * Records the transactions of invoices paid (and credit notes issued) since `since`: the invoice's
 * organisation attributed to an active partner at that moment, the share of that moment.
 * Answers how many were recorded.
 */
export async function recordPartnerTransactions(since: Date, executor: Executor = db()) {
  const at = since.toISOString();
  const paid = await countAffected(
    executor,
    sql`
    insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents,
                                      platform_cents, occurred_at)
    select a.partner_id, i.organization_id, i.id, i.kind, i.net_cents, s.share_bps, x.part, i.net_cents - x.part, i.paid_at
    from invoices i
    join partner_attributions a on a.organization_id = i.organization_id and a.started_at <= i.paid_at
                               and (a.ended_at is null or a.ended_at > i.paid_at)
    join partners p on p.id = a.partner_id and p.status = 'active'
    cross join lateral (select c.share_bps from partner_share_changes c
                        where c.partner_id = a.partner_id and c.effective_from <= i.paid_at
                        order by c.effective_from desc, c.id desc limit 1) s
    cross join lateral (select round(i.net_cents * s.share_bps / 10000.0)::bigint as part) x
    where i.paid_at >= ${at}::timestamptz and i.kind in ('topup', 'subscription', 'bank_transfer') and i.status <> 'void'
      and i.net_cents > 0
    on conflict (invoice_id) do nothing`,
  );
  // A credit note reverses what its invoice counted, at the invoice's share, never more than it counted.
  const reversed = await countAffected(
    executor,
    sql`
    insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents,
                                      platform_cents, occurred_at)
    select t.partner_id, c.organization_id, c.id, 'credit_note', -y.amount, t.share_bps, -y.part, -y.amount + y.part, c.paid_at
    from invoices c
    join partner_transactions t on t.invoice_id = c.credits_invoice_id
    cross join lateral (select least(c.net_cents, t.amount_cents + coalesce((
                          select sum(r.amount_cents) from partner_transactions r join invoices n on n.id = r.invoice_id
                          where n.credits_invoice_id = c.credits_invoice_id), 0)) as amount) left_to_reverse
    cross join lateral (select left_to_reverse.amount, round(left_to_reverse.amount * t.share_bps / 10000.0)::bigint as part) y
    where c.kind = 'credit_note' and c.paid_at >= ${at}::timestamptz and y.amount > 0
    on conflict (invoice_id) do nothing`,
  );
  return paid + reversed;
}
