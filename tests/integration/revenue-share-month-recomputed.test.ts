import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { completePayment, createPayment } from "~/.server/domains/billing/payments";
import { applyPlanChanges, issueMonthlyInvoices } from "~/.server/domains/billing/cycle";
import { changePlan, disputeInvoice } from "~/.server/domains/billing/settings";
import { changeWallet } from "~/.server/domains/billing/ledger";
import { settleMonth } from "~/.server/domains/revenue-share/settle";
import { nairobiMonth } from "~/.server/domains/billing/periods";
import { readableSettlement } from "~/.server/domains/revenue-share/statement";
import { action as invoiceAction } from "~/routes/admin/invoice";
import { action as disputeAction } from "~/routes/admin/dispute";
import { formRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { ledgerShares, moneyAgainstDocuments, recomputedShares } from "../support/revenue-share-recompute";

// Issue 72, "done when": a generated month of a partner's clients paying through every real path
// (prepaid M-Pesa, card and bank transfer; postpaid receipts by M-Pesa and card, the monthly tax
// invoice paid from them; a paid invoice credited (money back to the wallet); an unpaid one credited
// in part, then paid by a bank transfer quoting its number; a transfer started before a same-day
// referral and reconciled after it with the payer's earlier date; a prepaid client that changes to
// postpaid with credit left, a postpaid one that changes to prepaid with money on account, decision
// 124), recomputed from first principles and found equal to the ledger, the settlement and its
// statement, to the cent; and each client's money (payments, what is left on account) equal to what
// its tax documents charged, each shilling once.

const withParams = (handler: (args: never) => unknown, params: Record<string, string>) => (args: never) =>
  handler({ ...(args as object), params } as never);
const today = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

async function client(name: string, billingType: "prepaid" | "postpaid") {
  const account = await createVerifiedUser({ businessName: name });
  await rawQuery(
    `update organizations set plan_type = 'Growth', billing_type = $2, created_at = '2026-09-01', kra_pin = 'P051874263K' where id = $1`,
    [account.organization.id, billingType],
  );
  return { id: account.organization.id, actor: { organizationId: account.organization.id, userId: account.user.id } };
}

const attribute = (partnerId: string, organizationId: string) =>
  rawQuery(`insert into partner_attributions (partner_id, organization_id, source) values ($1, $2, 'referral')`, [
    partnerId,
    organizationId,
  ]);

async function pay(organizationId: string, method: "mpesa" | "card", amountKes: number, receipt: string) {
  const { payment } = await createPayment(db(), {
    organizationId,
    method,
    amountCents: amountKes * 100,
    phone: method === "mpesa" ? "254712345678" : null,
    reference: method === "card" ? `PSK-${receipt}` : null,
  });
  await completePayment(payment.id, { receipt, via: method === "card" ? "Paystack" : "M-Pesa" });
}

describe("a generated month, recomputed", () => {
  it("gives the partner, from first principles, what the ledger, the settlement and its statement say, to the cent", async () => {
    const adminAccount = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const cookie = await signedInCookie(adminAccount.email, adminAccount.password);
    const agency = await createVerifiedUser({ businessName: "Nairobi CRM Works" });
    const [row] = await rawQuery<{ id: string }>(
      `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
       values ($1, 'NBOCRM72', 'Nairobi CRM Works', 'CRM', 'active', 1800, 'mpesa', '254722510011', 'P052345678R', now()) returning id`,
      [agency.organization.id],
    );
    const partnerId = row!.id;
    await rawQuery(
      `insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, 1800, 'terms', '2026-01-01')`,
      [partnerId],
    );
    const reconcile = (invoiceId: string, reference: string, amount?: string) =>
      run(
        withParams(invoiceAction, { id: invoiceId }),
        formRequest(
          `/admin/billing/invoices/${invoiceId}`,
          { intent: "reconcile", reference, paymentDate: today(), note: "Seen on the statement", ...(amount ? { amount } : {}) },
          { cookie },
        ),
      );
    const credit = async (actor: { organizationId: string; userId: string | null }, invoiceId: string, amount: string) => {
      await disputeInvoice(actor, invoiceId, "The plan was changed part way through the month.");
      const [dispute] = await rawQuery<{ id: string }>(`select id from invoice_disputes where invoice_id = $1`, [invoiceId]);
      const done = await run(
        withParams(disputeAction, { id: dispute!.id }),
        formRequest(`/admin/billing/disputes/${dispute!.id}`, { intent: "credit", amount, note: "Agreed with the client" }, { cookie }),
      );
      expect(done.status).toBe(302);
    };

    // Prepaid: M-Pesa, card and a bank transfer, each a tax invoice with VAT inside.
    const prepaid = await client("Kilimo Fresh Produce", "prepaid");
    await attribute(partnerId, prepaid.id);
    await pay(prepaid.id, "mpesa", 1_160, "SKP0001160");
    await pay(prepaid.id, "card", 5_800, "CARD5800");
    const transfer = await startBankTransfer(prepaid.actor, { amount: "11600" });
    expect((await reconcile(transfer.invoiceId!, "NCBA-FT-0001")).status).toBe(302);

    // Postpaid: two receipts on account, the monthly tax invoice paid from them, then credited in part (money back).
    const postpaid = await client("Mwangaza Microfinance Bank", "postpaid");
    await attribute(partnerId, postpaid.id);
    await pay(postpaid.id, "mpesa", 1_160, "SKQ0001160");
    await pay(postpaid.id, "card", 60_000, "CARD60000");
    // Postpaid, paying by bank: its monthly invoice credited in part before it is paid, then reconciled by its number.
    const byBank = await client("Eldoret Agrovet Supplies", "postpaid");
    await attribute(partnerId, byBank.id);
    await issueMonthlyInvoices(new Date());
    const monthly = await rawQuery<{ id: string; organization_id: string; number: string; status: string; total_cents: string }>(
      `select id, organization_id, number, status, total_cents::text from invoices where kind = 'subscription' and organization_id = any($1::uuid[])`,
      [[postpaid.id, byBank.id]],
    );
    const paidMonthly = monthly.find((i) => i.organization_id === postpaid.id)!;
    const unpaidMonthly = monthly.find((i) => i.organization_id === byBank.id)!;
    expect([paidMonthly.status, unpaidMonthly.status]).toEqual(["paid", "pending"]);
    await credit(postpaid.actor, paidMonthly.id, "1000");
    await credit(byBank.actor, unpaidMonthly.id, "500");
    const [due] = await rawQuery<{ due: string }>(
      `select (total_cents - (select sum(total_cents) from invoices c where c.credits_invoice_id = i.id))::text as due from invoices i where id = $1`,
      [unpaidMonthly.id],
    );
    expect((await reconcile(unpaidMonthly.id, "KCB-FT-0002", String(Number(due!.due) / 100))).status).toBe(302);

    // A transfer started before a same-day referral, reconciled after it with the payer's (earlier) date: the partner's.
    const sameDay = await client("Mombasa Spice Traders", "prepaid");
    const early = await startBankTransfer(sameDay.actor, { amount: "464" });
    await attribute(partnerId, sameDay.id);
    expect((await reconcile(early.invoiceId!, "EQUITY-FT-0003")).status).toBe(302);

    // Changes of billing type asked for last month, taking effect now (decision 124). Prepaid with 2,900.00 unspent:
    // credit notes against the newest top-ups make it money on account. Postpaid with 12,000.00 on account: October
    // invoiced (10,440.00) and paid from it, the 1,560.00 left made prepaid credit by a tax invoice paid from it.
    const lastMonth = new Date(Date.now() - 31 * 86_400_000);
    const toPostpaid = await client("Pwani Fresh Juices", "prepaid");
    await attribute(partnerId, toPostpaid.id);
    await pay(toPostpaid.id, "mpesa", 2_320, "SKT0002320");
    await pay(toPostpaid.id, "card", 1_160, "CARD1160");
    await db().transaction((tx) =>
      changeWallet(tx, {
        organizationId: toPostpaid.id,
        kind: "charge",
        amountCents: -58_000,
        description: "290 messages sent, KES 580.00",
      }),
    );
    await changePlan(toPostpaid.actor, { plan: "growth", billingType: "postpaid" }, lastMonth);
    const toPrepaid = await client("Rift Valley Agro Supplies", "postpaid");
    await attribute(partnerId, toPrepaid.id);
    await pay(toPrepaid.id, "mpesa", 12_000, "SKU0012000");
    await changePlan(toPrepaid.actor, { plan: "growth", billingType: "prepaid" }, lastMonth);
    expect(await applyPlanChanges(new Date())).toBe(2);
    const reclassified = await rawQuery<{ organization_id: string; series: string; total_cents: string }>(
      `select organization_id, series, total_cents::text from invoices where reclassifies is not null order by organization_id, number`,
    );
    expect(reclassified.filter((r) => r.organization_id === toPostpaid.id).map((r) => [r.series, r.total_cents])).toEqual([
      ["CRN", "116000"],
      ["CRN", "174000"],
    ]);
    expect(reclassified.filter((r) => r.organization_id === toPrepaid.id).map((r) => [r.series, r.total_cents])).toEqual([
      ["INV", "156000"],
    ]);

    // Nobody's client: nothing.
    const stranger = await client("Nakuru Hardware", "prepaid");
    await pay(stranger.id, "mpesa", 2_320, "SKS0002320");

    const { byPartnerClient, counted } = await recomputedShares();
    // 3 prepaid, 2 monthly, 1 same-day transfer; 2 top-ups before a change to postpaid; a monthly invoice and a tax invoice of prepaid credit.
    expect(counted).toBe(10);
    expect(Object.keys(byPartnerClient).sort()).toEqual(
      [prepaid.id, postpaid.id, byBank.id, sameDay.id, toPostpaid.id, toPrepaid.id].map((c) => `${partnerId}:${c}`).sort(),
    );
    // Each client's money against its documents: what it paid in, less what is still on account, charged once.
    for (const c of [prepaid, postpaid, byBank, sameDay, toPostpaid, toPrepaid, stranger]) {
      const { money, documents } = await moneyAgainstDocuments(c.id);
      expect(documents).toBe(money);
    }
    // The change to postpaid: 580.00 of messages (500.00 net) is all its prepaid money earned; the change to prepaid: all 12,000.00.
    expect(byPartnerClient[`${partnerId}:${toPostpaid.id}`]!.revenue).toBe(50_000);
    expect(byPartnerClient[`${partnerId}:${toPrepaid.id}`]!.revenue).toBe(900_000 + 134_483);
    expect(await ledgerShares()).toEqual(byPartnerClient);
    // The same-day transfer's 400.00 net earns its 72.00.
    expect(byPartnerClient[`${partnerId}:${sameDay.id}`]).toEqual({ revenue: 40_000, share: 7_200 });
    // Receipts earn nothing; each document at most once.
    const kinds = await rawQuery<{ series: string; n: number }>(
      `select i.series, count(*)::int as n from partner_transactions t join invoices i on i.id = t.invoice_id group by i.series order by 1`,
    );
    expect(kinds).toEqual([
      { series: "CRN", n: 4 },
      { series: "INV", n: 10 },
    ]);

    // The month settled: one settlement, the sum of everything, and its statement's figures the same.
    const [settlement] = await settleMonth(nairobiMonth(new Date()));
    const total = Object.values(byPartnerClient).reduce((sum, f) => ({ revenue: sum.revenue + f.revenue, share: sum.share + f.share }), {
      revenue: 0,
      share: 0,
    });
    expect([settlement!.partner_id, Number(settlement!.partner_cents), settlement!.transactions]).toEqual([partnerId, total.share, 14]);
    const head = await readableSettlement({ role: "platform_admin", organizationId: agency.organization.id }, settlement!.id);
    expect([Number(head!.revenue_cents), Number(head!.partner_cents)]).toEqual([total.revenue, total.share]);
  }, 120_000);
});
