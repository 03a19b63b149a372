import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { BillingType } from "../../infrastructure/db/schema/billing";
import { WALLET_REFERENCE } from "~/lib/invoice-document";
import { formatKes } from "~/lib/invoice";
import { AMOUNT_DUE_SQL, issueInvoice } from "./invoices";
import { changeWallet, walletState } from "./ledger";
import { payOpenInvoicesFromWallet } from "./settle-invoices";
import { lineFromGross } from "./vat";

/**
 * What a change of billing type does with the money left in the wallet (decision 124), in the
 * transaction that changes the organisation's type, after its row and then its wallet are locked.
 * Each shilling is counted once on a tax document, whichever way the organisation goes:
 *
 * - prepaid → postpaid: the unspent prepaid credit (the available balance) was invoiced with VAT when
 *   it was topped up. Credit notes against the latest paid top-up tax invoices, newest first, up to that
 *   balance, take its VAT and the partner's share back (the credit-note rules, decision 102), and the
 *   wallet is not credited: the same money is now money on account, which the monthly tax invoices
 *   charge VAT on when it pays them. Money in the wallet no top-up invoiced (an adjustment) is on
 *   account as it is.
 * - postpaid → prepaid: the month that ended is invoiced as the cycle does, the money on account pays
 *   the open monthly invoices it covers (oldest first, as always), and what is left becomes prepaid
 *   credit by a tax invoice (VAT inside) paid from it: it earns the partner's share once, there.
 *
 * Neither adds money to the wallet or takes any from it: its ledger gets a line of zero naming the
 * document. Nothing left: no document.
 */
export interface Reclassified {
  direction: "to_account" | "to_prepaid";
  amountCents: number;
  documents: { id: string; number: string }[];
}

export async function reclassifyWallet(
  tx: Executor,
  organizationId: string,
  change: { from: BillingType; to: BillingType; planType: string },
  now: Date,
): Promise<Reclassified | null> {
  if (change.from === change.to) return null;
  return change.to === "postpaid"
    ? prepaidToAccount(tx, organizationId, change.planType, now)
    : accountToPrepaid(tx, organizationId, change.planType, now);
}

async function prepaidToAccount(tx: Executor, organizationId: string, planType: string, now: Date): Promise<Reclassified | null> {
  // The wallet first, then the invoices: the order every billing transaction locks them in.
  const { availableCents } = await walletState(tx, organizationId, { lock: true });
  if (availableCents <= 0) return null;
  // What each paid top-up tax invoice still counts: its total less the credit notes already against it.
  const topups = await queryRows<{ id: string; number: string; left_cents: number | string }>(
    tx,
    sql`
      select i.id, i.number, ${AMOUNT_DUE_SQL} as left_cents from invoices i
      where i.organization_id = ${organizationId} and i.series = 'INV' and i.kind in ('topup', 'bank_transfer') and i.status = 'paid'
      order by i.paid_at desc, i.number desc
      for update`,
  );
  let remaining = availableCents;
  const documents: { id: string; number: string }[] = [];
  for (const topup of topups) {
    const take = Math.min(remaining, Number(topup.left_cents));
    if (take <= 0) continue;
    const note = await issueInvoice(tx, {
      organizationId,
      series: "CRN",
      kind: "credit_note",
      status: "paid",
      description: `Credit note for ${topup.number}: unspent prepaid credit now money on account`,
      lines: [
        lineFromGross({
          description: `Unspent prepaid credit of ${topup.number}, now money on account (postpaid billing)`,
          itemCode: "JMB-CREDIT",
          quantity: 1,
          unit: "credit",
          unitPriceCents: take,
        }),
      ],
      pricesIncludeVat: true,
      issuedAt: now,
      paidAt: now,
      planType,
      billingType: "postpaid",
      creditsInvoiceId: topup.id,
      reclassifies: "to_account",
    });
    await changeWallet(tx, {
      organizationId,
      kind: "adjustment",
      amountCents: 0,
      invoiceId: note.id,
      description: `${formatKes(take)} of prepaid credit is now money on account (credit note ${note.number} for ${topup.number})`,
    });
    documents.push({ id: note.id, number: note.number });
    remaining -= take;
    if (remaining <= 0) break;
  }
  if (!documents.length) return null;
  return { direction: "to_account", amountCents: availableCents - remaining, documents };
}

async function accountToPrepaid(tx: Executor, organizationId: string, planType: string, now: Date): Promise<Reclassified | null> {
  await payOpenInvoicesFromWallet(tx, organizationId);
  const { availableCents } = await walletState(tx, organizationId, { lock: true });
  if (availableCents <= 0) return null;
  const invoice = await issueInvoice(tx, {
    organizationId,
    series: "INV",
    kind: "topup",
    status: "paid",
    description: "Prepaid credit paid from money on account",
    lines: [
      lineFromGross({
        description: "Prepaid credit, paid from money on account (prepaid billing)",
        itemCode: "JMB-TOPUP",
        quantity: 1,
        unit: "top-up",
        unitPriceCents: availableCents,
      }),
    ],
    pricesIncludeVat: true,
    issuedAt: now,
    paidAt: now,
    planType,
    billingType: "prepaid",
    paymentReference: WALLET_REFERENCE,
    reclassifies: "to_prepaid",
  });
  await changeWallet(tx, {
    organizationId,
    kind: "adjustment",
    amountCents: 0,
    invoiceId: invoice.id,
    description: `${formatKes(availableCents)} of money on account is now prepaid credit (tax invoice ${invoice.number})`,
  });
  return { direction: "to_prepaid", amountCents: availableCents, documents: [{ id: invoice.id, number: invoice.number }] };
}
