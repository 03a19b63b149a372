import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { invoiceDocument, issueInvoice, listInvoices } from "~/.server/domains/billing/invoices";
import { lineFromGross, lineFromNet } from "~/.server/domains/billing/vat";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { completePayment, createPayment } from "~/.server/domains/billing/payments";
import { walletState } from "~/.server/domains/billing/ledger";
import { renderInvoicePdf } from "~/.server/domains/billing/invoice-pdf";
import { InvoiceView } from "~/components/billing/invoice-view";
import { action as invoiceAction, loader as invoiceLoader } from "~/routes/admin/invoice";
import { loader as searchLoader } from "~/routes/admin/search";
import { loader as exportLoader } from "~/routes/admin/billing-export";
import { formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { pageText, pdfText } from "../support/document-text";

// Issue 72, "Billing records": a transfer quoting an invoice's number is reconciled against that
// invoice (its amount due, once, a wrong amount refused); a reconciled transfer keeps the moment it
// was recorded (paid_at) and the payer's value date apart; one reference from start to end (PDF,
// notification, API, the console's search); every document worded for what it is and fixed at issue;
// the billing CSV with codes and words in separate columns.

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function tenant(name: string, billingType: "prepaid" | "postpaid") {
  const account = await createVerifiedUser({ businessName: name });
  await rawQuery(`update organizations set plan_type = 'Enterprise', billing_type = $2 where id = $1`, [
    account.organization.id,
    billingType,
  ]);
  return {
    ...account,
    organizationId: account.organization.id,
    actor: { organizationId: account.organization.id, userId: account.user.id },
  };
}

/** A postpaid month's tax invoice: KES `shillings` + 16% VAT, pending. */
async function monthlyInvoice(organizationId: string, shillings: number, options: { month?: string; issuedAt?: Date } = {}) {
  const month = options.month ?? "2026-10";
  const end = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
  return db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "INV",
      kind: "subscription",
      status: "pending",
      description: "Enterprise plan",
      lines: [
        lineFromNet({ description: "Enterprise plan", itemCode: "JMB-PLAN", quantity: 1, unit: "month", unitPriceCents: shillings * 100 }),
      ],
      pricesIncludeVat: false,
      issuedAt: options.issuedAt,
      dueAt: new Date(Date.now() + 7 * 86_400_000),
      periodStart: `${month}-01`,
      periodEnd: end,
      planType: "Enterprise",
      billingType: "postpaid",
    }),
  );
}

/** A credit note of `shillings` (VAT inside) against an invoice, as a resolved dispute issues it. */
async function creditNote(organizationId: string, invoiceId: string, number: string, shillings: number) {
  const note = await db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "CRN",
      kind: "credit_note",
      status: "paid",
      description: `Credit note for ${number}`,
      lines: [
        lineFromGross({
          description: `Credit for ${number}`,
          itemCode: "JMB-CREDIT",
          quantity: 1,
          unit: "credit",
          unitPriceCents: shillings * 100,
        }),
      ],
      pricesIncludeVat: true,
      paidAt: new Date(),
    }),
  );
  await rawQuery(`update invoices set credits_invoice_id = $2 where id = $1`, [note.id, invoiceId]);
  return note;
}

const reconcile = (cookie: string, invoiceId: string, fields: Record<string, string>) =>
  run(
    (args: never) => invoiceAction({ ...(args as object), params: { id: invoiceId } } as never),
    formRequest(`/admin/billing/invoices/${invoiceId}`, { intent: "reconcile", note: "", ...fields }, { cookie }),
  );

/** The one refusal in a console form's reply: the sentence and its field. */
function refusalIn(page: { result: { error: Record<string, string[]> } }) {
  const [field, messages] = Object.entries(page.result.error)[0]!;
  return { message: messages[0], field };
}

const nairobiDay = (offsetDays = 0) => new Date(Date.now() + 3 * 3_600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
const balance = async (organizationId: string) => (await walletState(db(), organizationId)).balanceCents;

/** A document as the tenant's page and its PDF show it, in a language. */
async function rendered(organizationId: string, invoiceId: string, locale: "en" | "sw" | "fr" = "en") {
  const doc = (await invoiceDocument(organizationId, invoiceId))!;
  return inLocale(locale, async () => ({
    page: pageText(renderToStaticMarkup(createElement(InvoiceView, { invoice: doc }))),
    pdf: await pdfText(await renderInvoicePdf(doc)),
  }));
}

describe("a bank transfer quoting a postpaid invoice's number", () => {
  it("pays that invoice's amount due through the payment path, once; a wrong amount is refused in words", async () => {
    const a = await admin();
    const t = await tenant("Pwani Shipping Agents", "postpaid");
    const monthly = await monthlyInvoice(t.organizationId, 15_000); // 17,400.00 with VAT
    await creditNote(t.organizationId, monthly.id, monthly.number, 400); // partly credited: 17,000.00 due
    const view = await run(invoiceLoader, getRequest(`/admin/billing/invoices/${monthly.id}`, { cookie: a.cookie }), {
      params: { id: monthly.id },
    });
    expect(view.data.invoice.reconcilable).toBe(true);
    const start = await balance(t.organizationId);

    // The statement shows the whole total, not the amount due: refused at the field, nothing done.
    const wrong = await reconcile(a.cookie, monthly.id, { reference: "NCBA-FT-72001", amount: "17,400", paymentDate: nairobiDay() });
    expect(wrong.status).toBe(422);
    expect(refusalIn(wrong.data)).toEqual({
      field: "amount",
      message: `The statement's KES 17,400.00 is not the KES 17,000.00 due on ${monthly.number}. Reconcile a transfer only for the amount due; nothing was recorded.`,
    });
    expect(Number((await rawQuery<{ n: string }>(`select count(*) as n from payments where invoice_id = $1`, [monthly.id]))[0]!.n)).toBe(0);

    const before = new Date();
    const done = await reconcile(a.cookie, monthly.id, { reference: "NCBA-FT-72001", amount: "17000.00", paymentDate: nairobiDay() });
    expect(done.status).toBe(302);
    const [stored] = await rawQuery<{
      status: string;
      reconciled: boolean;
      payment_reference: string;
      bank_reference: string;
      paid_at: Date;
    }>(`select status, reconciled, payment_reference, bank_reference, paid_at from invoices where id = $1`, [monthly.id]);
    expect(stored).toMatchObject({ status: "paid", reconciled: true, payment_reference: monthly.number, bank_reference: "NCBA-FT-72001" });
    expect(new Date(stored!.paid_at).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    // The money came in and paid the invoice: the wallet is where it was, the ledger says both.
    expect(await balance(t.organizationId)).toBe(start);
    const entries = await rawQuery<{ kind: string; amount_cents: string }>(
      `select kind, amount_cents from wallet_entries where organization_id = $1 order by created_at, kind desc`,
      [t.organizationId],
    );
    expect(entries.map((e) => [e.kind, Number(e.amount_cents)])).toEqual([
      ["topup", 1_700_000],
      ["invoice_payment", -1_700_000],
    ]);

    // A second reconcile: a clear 409, nothing changes.
    const again = await reconcile(a.cookie, monthly.id, { reference: "NCBA-FT-72002", paymentDate: nairobiDay() });
    expect(again.status).toBe(409);
    expect(refusalIn(again.data).message).toBe(`${monthly.number} is already reconciled: the wallet was credited once.`);
    expect((await rawQuery(`select id from wallet_entries where organization_id = $1`, [t.organizationId])).length).toBe(2);
  });
});

describe("a reconciled JMB-BT- transfer", () => {
  it("keeps paid_at the moment it was recorded and the payer's value date beside it, on the document and the console", async () => {
    const a = await admin();
    const t = await tenant("Mombasa Spice House", "prepaid");
    const { payment, invoiceId } = await startBankTransfer(t.actor, { amount: "4640" });
    // Started three days ago; the payer's bank says the money went two days ago.
    await rawQuery(`update invoices set issued_at = issued_at - interval '3 days' where id = $1`, [invoiceId]);
    const valueDate = nairobiDay(-2);
    const before = new Date();
    expect((await reconcile(a.cookie, invoiceId!, { reference: payment.reference!, amount: "4,640", paymentDate: valueDate })).status).toBe(
      302,
    );

    const [stored] = await rawQuery<{ paid_at: Date; value_date: string }>(
      `select paid_at, to_char(value_date, 'YYYY-MM-DD') as value_date from invoices where id = $1`,
      [invoiceId],
    );
    expect(new Date(stored!.paid_at).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    expect(stored!.value_date).toBe(valueDate);
    const shown = `${valueDate.slice(8, 10)}/${valueDate.slice(5, 7)}/${valueDate.slice(0, 4)}`;
    const { page, pdf } = await rendered(t.organizationId, invoiceId!);
    expect(page).toContain(`Received on ${shown}`);
    expect(pdf).toContain(`Received on\n${shown}`);
    const console = await run(invoiceLoader, getRequest(`/admin/billing/invoices/${invoiceId!}`, { cookie: a.cookie }), {
      params: { id: invoiceId! },
    });
    expect(console.data.invoice.valueDate).toBe(valueDate);
  });

  it("keeps one reference from start to end: the PDF, the notification, the API and the console's search", async () => {
    const a = await admin();
    const t = await tenant("Kilifi Cashew Growers", "prepaid");
    const { payment, invoiceId } = await startBankTransfer(t.actor, { amount: "2000" });
    const reference = payment.reference!;
    expect((await reconcile(a.cookie, invoiceId!, { reference: "EQ-STMT-88231", paymentDate: nairobiDay() })).status).toBe(302);

    const { page, pdf } = await rendered(t.organizationId, invoiceId!);
    for (const text of [page, pdf]) {
      expect(text).toContain(reference);
      expect(text).not.toContain("BANK-");
    }
    const [notice] = await rawQuery<{ words: { body: { params: Record<string, unknown> } } }>(
      `select words from notifications where organization_id = $1 and event = 'payment_received'`,
      [t.organizationId],
    );
    expect(JSON.stringify(notice!.words)).toContain(reference);
    expect(JSON.stringify(notice!.words)).not.toContain("BANK-");
    // What GET /api/billing/invoices answers.
    const [listed] = await listInvoices(t.organizationId);
    expect(listed).toMatchObject({ id: invoiceId, paymentReference: reference, paymentMethod: "bank" });

    // The console's header search finds it by the payer's reference and by the bank's.
    for (const q of [reference, reference.toLowerCase(), "EQ-STMT-88231"]) {
      const found = await run(searchLoader, getRequest(`/admin/search?q=${encodeURIComponent(q)}`, { cookie: a.cookie }));
      const hits = (found.data.sections as { id: string; hits: { to: string }[] }[]).find((s) => s.id === "invoices")?.hits ?? [];
      expect(hits.map((h) => h.to)).toContain(`/admin/billing/invoices/${invoiceId}`);
    }
  });
});

describe("issued documents", () => {
  it("word a receipt as a receipt, and its words never change when a later invoice is issued and paid", async () => {
    const t = await tenant("Nyali Dental Clinic", "postpaid");
    const { payment } = await db().transaction((tx) =>
      createPayment(tx, { organizationId: t.organizationId, method: "mpesa", amountCents: 500_000, phone: "254712345678" }),
    );
    await completePayment(payment.id, { receipt: "TKR72RCPT1", via: "M-Pesa" });
    const [receipt] = await rawQuery<{ id: string; number: string }>(
      `select id, number from invoices where organization_id = $1 and series = 'RCT'`,
      [t.organizationId],
    );
    const issued = await rendered(t.organizationId, receipt!.id);
    for (const text of [issued.page, issued.pdf]) {
      expect(text).toContain("RECEIPT");
      expect(text).toMatch(/Receipt details|RECEIPT DETAILS/);
      expect(text).toContain("Receipt number");
      expect(text).toContain("Received");
      expect(text).not.toMatch(/Invoice details|INVOICE DETAILS|Invoice number/);
      expect(text).not.toContain("VAT 16%");
      expect(text).not.toContain("Pending transmission to KRA eTIMS");
      expect(text.replace(/\s+/g, " ")).toMatch(/on the monthly tax invoice for \w+ 2026, issued when the month ends/);
    }

    // The month's tax invoice is issued later and paid (from the wallet: the receipt's money).
    const month = nairobiDay().slice(0, 7);
    const monthly = await monthlyInvoice(t.organizationId, 1_000, { month, issuedAt: new Date(Date.now() + 1000) });
    await rawQuery(`update invoices set status = 'paid', paid_at = now(), payment_reference = 'Wallet' where id = $1`, [monthly.id]);
    const later = await rendered(t.organizationId, receipt!.id);
    expect(later).toEqual(issued);
    expect(later.pdf).not.toContain(monthly.number);
  });

  it("word a credit note as a credit note: issued, total credited, the invoice it credits; in English, Swahili and French", async () => {
    const t = await tenant("Lamu Dhow Tours", "postpaid");
    const monthly = await monthlyInvoice(t.organizationId, 5_000);
    const note = await creditNote(t.organizationId, monthly.id, monthly.number, 1_160);
    const en = await rendered(t.organizationId, note.id);
    for (const text of [en.page, en.pdf]) {
      expect(text).toContain("CREDIT NOTE");
      expect(text).toContain("Credit note number");
      expect(text).toContain("Total credited (KES)");
      expect(text).toMatch(/Credits invoice\s*\n?\s*INV-/);
      expect(text).toContain(monthly.number);
      expect(text).not.toMatch(/\bPAID\b|Total paid|Not paid yet|Invoice number/);
    }
    expect(en.pdf).toContain("ISSUED");
    const sw = await rendered(t.organizationId, note.id, "sw");
    expect(sw.pdf).toContain("HATI YA MAREJESHO");
    expect(sw.pdf).toContain("MAELEZO YA HATI YA MAREJESHO");
    expect(sw.pdf).not.toContain("IMELIPWA");
    const fr = await rendered(t.organizationId, note.id, "fr");
    expect(fr.page).toContain("Numéro de l'avoir");
    expect(fr.pdf).toContain("Total crédité (KES)");
    expect(fr.pdf).not.toContain("PAYÉE");

    // A tax invoice keeps its words.
    const invoice = await rendered(t.organizationId, monthly.id);
    expect(invoice.pdf).toContain("TAX INVOICE");
    expect(invoice.pdf).toContain("Invoice number");
    expect(invoice.page).toContain("VAT 16%");
  });
});

describe("the Billing tab's CSV", () => {
  it("has the status as a code in one column and in words in the next, for every row", async () => {
    const a = await admin();
    const t = await tenant("Watamu Kite Riders CSV", "postpaid");
    const credited = await monthlyInvoice(t.organizationId, 1_000, { month: "2026-08" });
    await creditNote(t.organizationId, credited.id, credited.number, 116);
    await rawQuery(`update invoices set status = 'paid', paid_at = now() where id = $1`, [credited.id]);
    await monthlyInvoice(t.organizationId, 2_000, { month: "2026-09" });
    const csv = await run(exportLoader, getRequest("/admin/billing/export.csv?q=watamu+kite", { cookie: a.cookie }));
    const lines = String(csv.data)
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\n");
    const cells = (line: string) =>
      [...line.matchAll(/"((?:[^"]|"")*)"|([^,]+)|(?<=,)(?=,|$)/g)].map((match) => match[1] ?? match[2] ?? "");
    const header = cells(lines[0]!);
    const code = header.indexOf("Status code");
    const words = header.indexOf("Status");
    expect(words).toBe(code + 1);
    const rows = lines.slice(1).map(cells);
    const byNumber = Object.fromEntries(rows.map((r) => [r[0], [r[code], r[words]]]));
    expect(byNumber[credited.number]).toEqual(["paid", "Paid · credit note"]);
    const [pending] = rows.filter((r) => r[0] !== credited.number && r[0]!.startsWith("INV-"));
    expect([pending![code], pending![words]]).toEqual(["pending", "Awaiting payment"]);
  });
});
