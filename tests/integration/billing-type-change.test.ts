import { spawn } from "node:child_process";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { applyPlanChanges, runBillingCycle } from "~/.server/domains/billing/cycle";
import { nairobiMidnight, periodAt, periodOfDate } from "~/.server/domains/billing/periods";
import { changePlan, disputeInvoice } from "~/.server/domains/billing/settings";
import { completePayment, createPayment } from "~/.server/domains/billing/payments";
import { changeWallet, walletState } from "~/.server/domains/billing/ledger";
import { invoiceDocument } from "~/.server/domains/billing/invoices";
import { renderInvoicePdf } from "~/.server/domains/billing/invoice-pdf";
import { InvoiceView } from "~/components/billing/invoice-view";
import { action as disputeAction } from "~/routes/admin/dispute";
import { formRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";
import { pageText, pdfText } from "../support/document-text";
import { ledgerShares, moneyAgainstDocuments, recomputedShares } from "../support/revenue-share-recompute";

// Issue 72's last open point (decision 102 "Left open", decision 124): an organisation that changes
// its billing type with money left in its wallet. Prepaid → postpaid: the unspent prepaid credit was
// invoiced with VAT and counted for the partner when topped up; it must not be counted again when it
// pays the first monthly tax invoice. Postpaid → prepaid: money on account must not be spent on
// messages without ever being on a tax invoice. Checked from the money (payments, the wallet) against
// the documents, and the partner's share from first principles against the ledger.

// The change is asked for now, in this Nairobi month ("November" below), and takes effect on the 1st of the
// next ("DECEMBER"), at 00:05 in Nairobi; the month after is "JANUARY". Relative to the clock: the
// payments below are made now, before the change, as a real account's are.
const ASKED = new Date();
const THIS_MONTH = periodAt(ASKED);
const DECEMBER = new Date(nairobiMidnight(THIS_MONTH.next).getTime() + 5 * 60_000);
const JANUARY = new Date(nairobiMidnight(periodOfDate(THIS_MONTH.next).next).getTime() + 5 * 60_000);

async function partner() {
  const agency = await createVerifiedUser({ businessName: "Nairobi CRM Works" });
  const [row] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, 'NBOCRM124', 'Nairobi CRM Works', 'CRM', 'active', 1800, 'mpesa', '254722510011', 'P052345678R', now()) returning id`,
    [agency.organization.id],
  );
  await rawQuery(
    `insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, 1800, 'terms', '2026-01-01')`,
    [row!.id],
  );
  return row!.id;
}

async function client(name: string, billingType: "prepaid" | "postpaid", partnerId?: string) {
  const account = await createVerifiedUser({ businessName: name });
  await rawQuery(
    `update organizations set plan_type = 'Growth', billing_type = $2, created_at = '2026-09-01', kra_pin = 'P051874263K' where id = $1`,
    [account.organization.id, billingType],
  );
  if (partnerId)
    await rawQuery(`insert into partner_attributions (partner_id, organization_id, source) values ($1, $2, 'referral')`, [
      partnerId,
      account.organization.id,
    ]);
  return { id: account.organization.id, actor: { organizationId: account.organization.id, userId: account.user.id } };
}

let receipts = 0;
async function pay(organizationId: string, method: "mpesa" | "card", amountKes: number) {
  const receipt = `SWX${String(++receipts).padStart(7, "0")}`;
  const { payment } = await createPayment(db(), {
    organizationId,
    method,
    amountCents: amountKes * 100,
    phone: method === "mpesa" ? "254712345678" : null,
    reference: method === "card" ? `PSK-${receipt}` : null,
  });
  await completePayment(payment.id, { receipt, via: method === "card" ? "Paystack" : "M-Pesa" });
}

/** Prepaid messages sent: the wallet pays them, as charging does. */
const spend = (organizationId: string, cents: number) =>
  db().transaction((tx) => changeWallet(tx, { organizationId, kind: "charge", amountCents: -cents, description: "5 messages sent" }));

const wallet = (organizationId: string) => walletState(db(), organizationId);

const documentsOf = (organizationId: string) =>
  rawQuery<{
    number: string;
    kind: string;
    status: string;
    total_cents: string;
    vat_cents: string;
    reclassifies: string | null;
    credits: string | null;
  }>(
    `select i.number, i.kind, i.status, i.total_cents::text, i.vat_cents::text, i.reclassifies, c.number as credits
     from invoices i left join invoices c on c.id = i.credits_invoice_id
     where i.organization_id = $1 order by i.issued_at, i.number`,
    [organizationId],
  );

async function expectEveryShillingOnce(organizationIds: string[]) {
  for (const id of organizationIds) {
    const { money, documents } = await moneyAgainstDocuments(id);
    expect({ id, documents }).toEqual({ id, documents: money });
  }
  expect(await ledgerShares()).toEqual((await recomputedShares()).byPartnerClient);
}

describe("a change from prepaid to postpaid with money left in the wallet", () => {
  it("turns the unspent credit into money on account by credit notes against the latest top-ups, without touching the balance, and the first monthly invoice counts it once", async () => {
    const partnerId = await partner();
    const c = await client("Kilimo Fresh Produce", "prepaid", partnerId);
    await pay(c.id, "mpesa", 1_160);
    await pay(c.id, "card", 2_320);
    await spend(c.id, 100_000);
    expect(await changePlan(c.actor, { plan: "growth", billingType: "postpaid" }, ASKED)).toMatchObject({ from: THIS_MONTH.next });

    const before = await wallet(c.id);
    expect(before.balanceCents).toBe(248_000);
    expect(await applyPlanChanges(DECEMBER)).toBe(1);
    // The balance is the same money, now on account: nothing added, nothing paid back.
    expect(await wallet(c.id)).toEqual(before);
    const docs = await documentsOf(c.id);
    const [mpesa, card] = docs.filter((d) => d.kind === "topup");
    // Newest top-up first: all of the card's 2,320.00, then 160.00 of the M-Pesa one.
    expect(docs.filter((d) => d.kind === "credit_note")).toEqual([
      expect.objectContaining({ credits: card!.number, total_cents: "232000", vat_cents: "32000", reclassifies: "to_account" }),
      expect.objectContaining({ credits: mpesa!.number, total_cents: "16000", vat_cents: "2207", reclassifies: "to_account" }),
    ]);
    const entries = await rawQuery<{ kind: string; amount_cents: string; description: string }>(
      `select kind, amount_cents::text, description from wallet_entries where organization_id = $1 and kind = 'adjustment' order by id`,
      [c.id],
    );
    expect(entries.map((e) => [e.kind, e.amount_cents])).toEqual([
      ["adjustment", "0"],
      ["adjustment", "0"],
    ]);
    expect(entries[0]!.description).toMatch(/^KES 2,320.00 of prepaid credit is now money on account \(credit note CRN-/);

    // December on the postpaid plan: its invoice (Growth 9,000.00 + VAT = 10,440.00) is paid from that money and a receipt.
    await pay(c.id, "mpesa", 7_960);
    await runBillingCycle(JANUARY);
    const [monthly] = (await documentsOf(c.id)).filter((d) => d.kind === "subscription");
    expect(monthly).toMatchObject({ status: "paid", total_cents: "1044000", vat_cents: "144000" });
    // Paid in 11,440.00: 1,000.00 of messages and December's 10,440.00, each on one tax document, with its VAT once.
    expect(await moneyAgainstDocuments(c.id)).toEqual({
      money: 1_144_000,
      documents: 1_144_000,
      vat: 16_000 + 32_000 - 32_000 - 2_207 + 144_000,
    });
    await expectEveryShillingOnce([c.id]);
    // The partner: 18% of 1,000.00 + 2,000.00 − 2,000.00 − 137.93 + 9,000.00 net, each document's part rounded.
    expect(await ledgerShares()).toEqual({
      [`${partnerId}:${c.id}`]: { revenue: 986_207, share: 18_000 + 36_000 - 36_000 - 2_483 + 162_000 },
    });
  });

  it("says on the credit note, in English, Swahili and French, that nothing is paid back and the money is on account", async () => {
    const c = await client("Duka la Mama", "prepaid");
    await pay(c.id, "mpesa", 580);
    await changePlan(c.actor, { plan: "growth", billingType: "postpaid" }, ASKED);
    await applyPlanChanges(DECEMBER);
    const [note] = await rawQuery<{ id: string }>(`select id from invoices where organization_id = $1 and kind = 'credit_note'`, [c.id]);
    expect(note).toBeDefined();
    const doc = (await invoiceDocument(c.id, note!.id))!;
    const said = {
      en: "No money is paid back: this credit note takes back the VAT on prepaid credit not spent when the organisation changed to postpaid billing.",
      sw: "Hakuna pesa inayorudishwa: hati hii ya punguzo inarudisha VAT ya salio la malipo ya awali",
      fr: "Aucun remboursement : cet avoir reprend la TVA du crédit prépayé non dépensé",
    } as const;
    for (const locale of ["en", "sw", "fr"] as const) {
      const page = await inLocale(locale, async () => pageText(renderToStaticMarkup(createElement(InvoiceView, { invoice: doc }))));
      expect(page).toContain(said[locale]);
    }
    const pdf = (await inLocale("en", () => renderInvoicePdf(doc)).then(pdfText)).replace(/\n/g, " ");
    expect(pdf).toContain("That money stays in the wallet as money on account");
  });
});

describe("a change from postpaid to prepaid with money on account left", () => {
  it("invoices the month that ended, then makes what is left prepaid credit by a tax invoice paid from it, the balance unchanged", async () => {
    const partnerId = await partner();
    const c = await client("Mwangaza Microfinance Bank", "postpaid", partnerId);
    await pay(c.id, "mpesa", 20_000);
    await changePlan(c.actor, { plan: "growth", billingType: "prepaid" }, ASKED);
    // The change alone, without the cycle's invoicing run first: November is still invoiced, on the postpaid plan.
    expect(await applyPlanChanges(DECEMBER)).toBe(1);
    const docs = await documentsOf(c.id);
    expect(docs.map((d) => [d.kind, d.status, d.total_cents, d.vat_cents, d.reclassifies])).toEqual([
      ["topup", "paid", "2000000", "0", null], // the receipt on account
      ["subscription", "paid", "1044000", "144000", null], // November, paid from it
      ["topup", "paid", "956000", "131862", "to_prepaid"], // the rest, now prepaid credit
    ]);
    expect((await wallet(c.id)).balanceCents).toBe(956_000);
    // The wallet: the receipt's money in, November paid from it, and the change's line of zero (the balance unchanged by it).
    expect(
      await rawQuery(
        `select kind, amount_cents::text, balance_after_cents::text from wallet_entries where organization_id = $1 order by id`,
        [c.id],
      ),
    ).toEqual([
      { kind: "topup", amount_cents: "2000000", balance_after_cents: "2000000" },
      { kind: "invoice_payment", amount_cents: "-1044000", balance_after_cents: "956000" },
      { kind: "adjustment", amount_cents: "0", balance_after_cents: "956000" },
    ]);
    expect(await rawQuery(`select billing_type from organizations where id = $1`, [c.id])).toEqual([{ billing_type: "prepaid" }]);
    // Paid in 20,000.00: November's 10,440.00 and 9,560.00 of prepaid credit, each once with its VAT.
    expect(await moneyAgainstDocuments(c.id)).toEqual({ money: 2_000_000, documents: 2_000_000, vat: 144_000 + 131_862 });
    await expectEveryShillingOnce([c.id]);

    const [converted] = await rawQuery<{ id: string }>(
      `select id from invoices where organization_id = $1 and reclassifies = 'to_prepaid'`,
      [c.id],
    );
    const doc = (await invoiceDocument(c.id, converted!.id))!;
    const page = await inLocale("fr", async () => pageText(renderToStaticMarkup(createElement(InvoiceView, { invoice: doc }))));
    expect(page).toContain("Réglée avec l'argent versé sur le compte détenu au passage de l'organisation à la facturation prépayée");
    const english = await inLocale("en", async () => pageText(renderToStaticMarkup(createElement(InvoiceView, { invoice: doc }))));
    expect(english).toContain("no new money was received and the wallet balance did not change");
  });

  it("writes no document when nothing is left, and still invoices the month before the change", async () => {
    const postpaid = await client("Nyota Savings Sacco", "postpaid");
    await pay(postpaid.id, "mpesa", 10_440); // November's invoice exactly
    await changePlan(postpaid.actor, { plan: "growth", billingType: "prepaid" }, ASKED);
    const prepaid = await client("Chui Logistics", "prepaid");
    await pay(prepaid.id, "mpesa", 1_160);
    await spend(prepaid.id, 116_000); // all of it spent on messages
    await changePlan(prepaid.actor, { plan: "growth", billingType: "postpaid" }, ASKED);
    expect(await applyPlanChanges(DECEMBER)).toBe(2);
    expect((await documentsOf(postpaid.id)).map((d) => [d.kind, d.status, d.reclassifies])).toEqual([
      ["topup", "paid", null],
      ["subscription", "paid", null],
    ]);
    expect((await documentsOf(prepaid.id)).map((d) => [d.kind, d.reclassifies])).toEqual([["topup", null]]);
    expect(await rawQuery(`select count(*)::int as n from wallet_entries where kind = 'adjustment'`)).toEqual([{ n: 0 }]);
    await expectEveryShillingOnce([postpaid.id, prepaid.id]);
  });
});

describe("a change applied twice", () => {
  it("reclassifies once when the cycle runs again", async () => {
    const c = await client("Baraka Sacco", "prepaid");
    await pay(c.id, "mpesa", 2_320);
    await changePlan(c.actor, { plan: "growth", billingType: "postpaid" }, ASKED);
    await changePlan(c.actor, { plan: "growth", billingType: "postpaid" }, ASKED); // submitted twice
    expect(await applyPlanChanges(DECEMBER)).toBe(1);
    expect(await applyPlanChanges(DECEMBER)).toBe(0);
    expect((await documentsOf(c.id)).filter((d) => d.kind === "credit_note")).toHaveLength(1);
    await expectEveryShillingOnce([c.id]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)("reclassifies once when two processes run the cycle at the same moment", async () => {
    // Two top-ups, one spent: a second reclassification would credit the older one too.
    const prepaid = await client("Acacia Bank", "prepaid");
    await pay(prepaid.id, "mpesa", 2_320);
    await pay(prepaid.id, "mpesa", 2_320);
    await spend(prepaid.id, 232_000);
    await changePlan(prepaid.actor, { plan: "growth", billingType: "postpaid" }, ASKED);
    // Its change first in the cycle's order, so both processes meet on it while its wallet is held below.
    await rawQuery(`update organizations set next_plan_from = $2 where id = $1`, [prepaid.id, THIS_MONTH.end]);
    const postpaid = await client("Dafina Foods", "postpaid");
    await pay(postpaid.id, "mpesa", 20_000);
    await changePlan(postpaid.actor, { plan: "growth", billingType: "prepaid" }, ASKED);
    const cycle = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "tests/support/billing-cycle-process.ts"], {
          env: { ...process.env, DATABASE_URL: testDatabaseUrl()!, BILLING_NOW: DECEMBER.toISOString(), LOG_LEVEL: "silent" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`cycle process failed: ${err}`))));
      });
    // The wallet held until both processes wait on a lock: one on the wallet under the organisation's row,
    // the other on that row. Without the row lock both would be past it, waiting on the wallet, and both reclassify.
    let running: Promise<string[]> | undefined;
    await db().transaction(async (tx) => {
      await tx.execute(sql`select 1 from wallets where organization_id = ${prepaid.id} for update`);
      running = Promise.all([cycle(), cycle()]);
      // pg_locks is read live (pg_stat_activity would be a snapshot for this transaction).
      const waiting = async () =>
        (await queryRows<{ n: number }>(tx, sql`select count(distinct pid)::int as n from pg_locks where not granted`))[0]!.n;
      while ((await waiting()) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    const outputs = await running!;
    const changes = outputs.map(
      (o) =>
        JSON.parse(
          o
            .split("\n")
            .find((line) => line.startsWith("CYCLE "))!
            .slice(6),
        ).planChanges as number,
    );
    expect(changes.reduce((a, b) => a + b, 0)).toBe(2);
    expect(
      await rawQuery(`select reclassifies, count(*)::int as n from invoices where reclassifies is not null group by 1 order by 1`),
    ).toEqual([
      { reclassifies: "to_account", n: 1 },
      { reclassifies: "to_prepaid", n: 1 },
    ]);
    expect((await documentsOf(postpaid.id)).filter((d) => d.kind === "subscription")).toHaveLength(1);
    expect((await wallet(prepaid.id)).balanceCents).toBe(232_000);
    expect((await wallet(postpaid.id)).balanceCents).toBe(956_000);
    await expectEveryShillingOnce([prepaid.id, postpaid.id]);
  });
});

describe("a paid top-up disputed and credited", () => {
  it("takes the credit out of the wallet to be paid back, instead of putting the money in a second time", async () => {
    const adminAccount = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const cookie = await signedInCookie(adminAccount.email, adminAccount.password);
    const c = await client("Mombasa Spice Traders", "prepaid");
    await pay(c.id, "mpesa", 1_160);
    await pay(c.id, "mpesa", 1_160);
    await spend(c.id, 150_000);
    const topups = await rawQuery<{ id: string }>(`select id from invoices where organization_id = $1 order by number`, [c.id]);
    await disputeInvoice(c.actor, topups[1]!.id, "The same top-up was charged to us twice by M-Pesa.");
    const [dispute] = await rawQuery<{ id: string }>(`select id from invoice_disputes where invoice_id = $1`, [topups[1]!.id]);
    const credit = (amount: string) =>
      run(
        (args: never) => disputeAction({ ...(args as object), params: { id: dispute!.id } } as never),
        formRequest(`/admin/billing/disputes/${dispute!.id}`, { intent: "credit", amount, note: "Duplicate payment" }, { cookie }),
      );
    // 820.00 is left of the 2,320.00: the whole 1,160.00 cannot be paid back from it. Refused at the field, nothing written.
    const refused = await credit("");
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.data)).toContain("The wallet holds only KES 820.00");
    expect(await rawQuery(`select count(*)::int as n from invoices where kind = 'credit_note'`)).toEqual([{ n: 0 }]);

    expect((await credit("800")).status).toBe(302);
    expect((await wallet(c.id)).balanceCents).toBe(2_000);
    const [entry] = await rawQuery<{ kind: string; amount_cents: string; description: string }>(
      `select kind, amount_cents::text, description from wallet_entries where organization_id = $1 order by id desc limit 1`,
      [c.id],
    );
    expect(entry).toMatchObject({ kind: "refund", amount_cents: "-80000" });
    expect(entry!.description).toMatch(/^Credit note CRN-\d{4}-\d{6} for INV-\d{4}-\d{6}: paid back to the payer$/);
    // Paid in 2,320.00, 800.00 paid back: 1,520.00 on the tax documents.
    expect(await moneyAgainstDocuments(c.id)).toMatchObject({ money: 152_000, documents: 152_000 });
  });
});
