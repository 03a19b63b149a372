import { rawQuery } from "~/.server/infrastructure/db/client";

/**
 * Each partner's share recomputed from first principles (decision 102), from the documents alone:
 * every paid tax invoice (INV) of an organisation attributed to an active partner when it was paid,
 * net of VAT, at the share of that moment, less what credit notes took back of it (never more than
 * it counted), each part rounded half away from zero. Keyed `partner:client`. It reads invoices,
 * attributions, partners and shares, never partner_transactions: the ledger is what it checks.
 * A partner's status is read as it is now (the callers' partners were never suspended while paid).
 */
export async function recomputedShares() {
  const docs = await rawQuery<{
    id: string;
    organization_id: string;
    series: string;
    kind: string;
    status: string;
    paid_at: Date | string | null;
    net_cents: string;
    credits_invoice_id: string | null;
  }>(`select id, organization_id, series, kind, status, paid_at, net_cents::text, credits_invoice_id from invoices`);
  const attributions = await rawQuery<{ partner_id: string; organization_id: string; started_at: Date; ended_at: Date | null }>(
    `select partner_id, organization_id, started_at, ended_at from partner_attributions`,
  );
  const partners = await rawQuery<{ id: string; status: string }>(`select id, status from partners`);
  const shares = await rawQuery<{ partner_id: string; share_bps: number; effective_from: Date }>(
    `select partner_id, share_bps, effective_from from partner_share_changes order by effective_from, id`,
  );
  const time = (value: Date | string) => new Date(value).getTime();
  const part = (cents: number, bps: number) => Math.sign(cents) * Math.round((Math.abs(cents) * bps) / 10_000);
  const credited = new Map<string, number>();
  for (const d of docs)
    if (d.kind === "credit_note" && d.credits_invoice_id && d.paid_at && d.status !== "void")
      credited.set(d.credits_invoice_id, (credited.get(d.credits_invoice_id) ?? 0) + Number(d.net_cents));

  const figures = new Map<string, { revenue: number; share: number }>();
  let counted = 0;
  for (const d of docs) {
    if (d.series !== "INV" || d.kind === "credit_note" || d.status === "void" || !d.paid_at || Number(d.net_cents) <= 0) continue;
    const paid = time(d.paid_at);
    const by = attributions.find(
      (a) => a.organization_id === d.organization_id && time(a.started_at) <= paid && (!a.ended_at || time(a.ended_at) > paid),
    );
    if (!by || partners.find((p) => p.id === by.partner_id)?.status !== "active") continue;
    const bps = shares.filter((s) => s.partner_id === by.partner_id && time(s.effective_from) <= paid).at(-1)!.share_bps;
    const net = Number(d.net_cents);
    const taken = Math.min(net, credited.get(d.id) ?? 0);
    const key = `${by.partner_id}:${d.organization_id}`;
    const was = figures.get(key) ?? { revenue: 0, share: 0 };
    figures.set(key, { revenue: was.revenue + net - taken, share: was.share + part(net, bps) - part(taken, bps) });
    counted++;
  }
  return { byPartnerClient: Object.fromEntries(figures), counted };
}

/** The ledger's figures keyed as recomputedShares keys them. */
export async function ledgerShares() {
  const rows = await rawQuery<{ partner_id: string; client: string; revenue: string; share: string }>(
    `select partner_id, client_organization_id as client, sum(amount_cents)::text as revenue, sum(partner_cents)::text as share
     from partner_transactions group by partner_id, client_organization_id`,
  );
  return Object.fromEntries(rows.map((r) => [`${r.partner_id}:${r.client}`, { revenue: Number(r.revenue), share: Number(r.share) }]));
}

/**
 * Every shilling once, from the money alone (decision 124): what an organisation's money has paid
 * for, VAT included, is what it paid in (completed payments), less what it still holds on account
 * (a postpaid wallet's balance; a prepaid wallet's is credit already paid for) and less what was
 * paid back to the payer. It reads payments, the wallet and the billing type, never an invoice.
 * `documents` is what the tax documents count for the same organisation: the paid tax invoices'
 * totals and VAT less their credit notes'. Equal, each shilling was charged VAT once, whatever the
 * organisation's changes of billing type.
 */
export async function moneyAgainstDocuments(organizationId: string) {
  const [money] = await rawQuery<{ paid_in: string; balance: string; paid_back: string; billing_type: string }>(
    `select (select coalesce(sum(amount_cents), 0) from payments where organization_id = o.id and status = 'completed')::text as paid_in,
            coalesce((select balance_cents from wallets where organization_id = o.id), 0)::text as balance,
            (select coalesce(-sum(amount_cents), 0) from wallet_entries
             where organization_id = o.id and kind = 'refund' and amount_cents < 0)::text as paid_back,
            o.billing_type
     from organizations o where o.id = $1`,
    [organizationId],
  );
  const onAccount = money!.billing_type === "postpaid" ? Number(money!.balance) : 0;
  const [docs] = await rawQuery<{ gross: string; vat: string }>(
    `select coalesce(sum(case when i.kind = 'credit_note' then -i.total_cents else i.total_cents end), 0)::text as gross,
            coalesce(sum(case when i.kind = 'credit_note' then -i.vat_cents else i.vat_cents end), 0)::text as vat
     from invoices i
     where i.organization_id = $1 and i.paid_at is not null and i.status <> 'void'
       and (i.series = 'INV' or (i.kind = 'credit_note'
            and exists (select 1 from invoices c where c.id = i.credits_invoice_id and c.series = 'INV' and c.paid_at is not null)))`,
    [organizationId],
  );
  return {
    money: Number(money!.paid_in) - onAccount - Number(money!.paid_back),
    documents: Number(docs!.gross),
    vat: Number(docs!.vat),
  };
}
