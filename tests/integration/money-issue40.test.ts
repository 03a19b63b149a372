import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { invoiceDocument, issueInvoice, listInvoices } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { changeWallet, walletState } from "~/.server/domains/billing/ledger";
import { completePayment, createPayment } from "~/.server/domains/billing/payments";
import { payOpenInvoicesFromWallet } from "~/.server/domains/billing/settle-invoices";
import { disputeInvoice } from "~/.server/domains/billing/settings";
import { adminInvoicePage, parseInvoiceFilters } from "~/.server/domains/admin/billing/invoice-table";
import { dueWords } from "~/.server/domains/admin/billing/invoice-detail";
import { loader as exportLoader } from "~/routes/admin/billing-export";
import { action as invoiceAction } from "~/routes/admin/invoice";
import { loader as disputeLoader, action as disputeAction } from "~/routes/admin/dispute";
import { amountDueCents, documentTitle, invoiceStatusWords, paymentMethodLabel, transferReference } from "~/lib/invoice-document";
import { formRequest, getRequest, run, type Handler } from "../support/http";
import { createVerifiedUser, latestMailTo, signedInCookie } from "../support/accounts";

// Issue 40, "Money": one reference per bank transfer; a partial credit note lowers what is due (the
// wallet untouched) and every view tells the same story; the administrator who reconciled is on the
// ledger; the export names the wallet; a receipt is not a tax invoice; reminders word the due date.

/** The loader or action of a route with an id in its path, as React Router calls it there. */
const withParams =
  (handler: Handler, params: Record<string, string>): Handler =>
  (args) =>
    handler({ ...(args as object), params } as never);

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function tenant(name: string, billingType: "prepaid" | "postpaid" = "prepaid") {
  const account = await createVerifiedUser({ businessName: name });
  await rawQuery(`update organizations set plan_type = 'Growth', billing_type = $2 where id = $1`, [account.organization.id, billingType]);
  return {
    ...account,
    organizationId: account.organization.id,
    actor: { organizationId: account.organization.id, userId: account.user.id },
  };
}

/** A monthly invoice of `shillings` (VAT inside). */
function monthly(
  organizationId: string,
  shillings: number,
  status: "pending" | "overdue" | "paid",
  dueAt = new Date(Date.now() + 7 * 86_400_000),
) {
  return db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "INV",
      kind: "subscription",
      status,
      description: "Postpaid month",
      lines: [lineFromGross({ description: "Messages", itemCode: "JMB-MSG", quantity: 1, unit: "month", unitPriceCents: shillings * 100 })],
      pricesIncludeVat: true,
      dueAt,
      paidAt: status === "paid" ? new Date() : null,
      planType: "Growth",
      billingType: "postpaid",
    }),
  );
}

const balance = async (organizationId: string) => (await walletState(db(), organizationId)).balanceCents;
const fund = (organizationId: string, cents: number) =>
  db().transaction((tx) => changeWallet(tx, { organizationId, kind: "adjustment", amountCents: cents, description: "Opening balance" }));
const today = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

async function exportRows(cookie: string, q: string) {
  const csv = await run(exportLoader, getRequest(`/admin/billing/export.csv?q=${encodeURIComponent(q)}`, { cookie }));
  expect(csv.status).toBe(200);
  const [header, ...rows] = String(csv.data).trim().split("\n");
  const columns = header!.split(",").map((c) => c.replace(/"/g, ""));
  return rows.map((line) => {
    const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, "").replace(/^"|"$/g, ""));
    return Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
  });
}

describe("a partial credit note on an unpaid invoice", () => {
  it("lowers what is due, takes nothing from the wallet, and the page, PDF data, export and ledger agree", async () => {
    const a = await admin();
    const t = await tenant("Kilifi Cashew Growers");
    await fund(t.organizationId, 500_000);
    const invoice = await monthly(t.organizationId, 2_320, "pending");
    await disputeInvoice(t.actor, invoice.id, "Some of these messages were never delivered.");
    const [{ id: disputeId }] = (await rawQuery<{ id: string }>(`select id from invoice_disputes where invoice_id = $1`, [invoice.id])) as [
      { id: string },
    ];

    // Before confirming, the administrator is told what a credit will do.
    const page = await run(
      withParams(disputeLoader, { id: disputeId }),
      getRequest(`/admin/billing/disputes/${disputeId}`, { cookie: a.cookie }),
    );
    expect(page.status).toBe(200);

    const done = await run(
      withParams(disputeAction, { id: disputeId }),
      formRequest(
        `/admin/billing/disputes/${disputeId}`,
        { intent: "credit", amount: "1,500", note: "Undelivered messages" },
        { cookie: a.cookie },
      ),
    );
    expect(done.status).toBe(302);
    // The wallet is neither credited nor charged: no refund, no invoice payment.
    expect(await balance(t.organizationId)).toBe(500_000);
    const kinds = await rawQuery<{ kind: string }>(`select kind from wallet_entries where organization_id = $1 order by created_at`, [
      t.organizationId,
    ]);
    expect(kinds.map((k) => k.kind)).toEqual(["adjustment"]);

    const doc = (await invoiceDocument(t.organizationId, invoice.id))!;
    expect(doc.status).toBe("pending");
    expect(doc.credited).toEqual({ cents: 150_000, notes: [expect.stringMatching(/^CRN-/)] });
    expect(amountDueCents(doc)).toBe(82_000);
    expect(invoiceStatusWords(doc)).toBe("Partly credited");
    expect(paymentMethodLabel(doc)).toBeNull();
    expect((await listInvoices(t.organizationId)).find((r) => r.id === invoice.id)).toMatchObject({
      status: "pending",
      creditedCents: 150_000,
    });

    const [row] = await exportRows(a.cookie, "Kilifi Cashew").then((rows) => rows.filter((r) => r["Invoice number"] === invoice.number));
    expect(row).toMatchObject({ Status: "Partly credited", "Credited (KES)": "1500.00", "Payment method": "" });

    // What is left is due as before: money on account pays the KES 820 left, not the whole invoice.
    await db().transaction((tx) => payOpenInvoicesFromWallet(tx, t.organizationId));
    expect(await balance(t.organizationId)).toBe(500_000 - 82_000);
    const paid = (await invoiceDocument(t.organizationId, invoice.id))!;
    expect(paid.status).toBe("paid");
    expect(invoiceStatusWords(paid)).toBe("Paid · credit note");
    expect(paymentMethodLabel(paid)).toBe("Wallet");
    const [after] = (await exportRows(a.cookie, "Kilifi Cashew")).filter((r) => r["Invoice number"] === invoice.number);
    expect(after).toMatchObject({ Status: "Paid · credit note", "Payment method": "Wallet" });
    const ledger = await rawQuery<{ kind: string; amount_cents: string }>(
      `select kind, amount_cents::text from wallet_entries where organization_id = $1 order by created_at`,
      [t.organizationId],
    );
    expect(ledger).toEqual([
      { kind: "adjustment", amount_cents: "500000" },
      { kind: "invoice_payment", amount_cents: "-82000" },
    ]);
  });

  it("still credits the wallet for a paid invoice", async () => {
    const a = await admin();
    const t = await tenant("Voi Sisal Traders");
    const invoice = await monthly(t.organizationId, 2_320, "paid");
    await disputeInvoice(t.actor, invoice.id, "Charged twice for the same campaign.");
    const [{ id }] = (await rawQuery<{ id: string }>(`select id from invoice_disputes where invoice_id = $1`, [invoice.id])) as [
      { id: string },
    ];
    const done = await run(
      withParams(disputeAction, { id }),
      formRequest(`/admin/billing/disputes/${id}`, { intent: "credit", amount: "1500" }, { cookie: a.cookie }),
    );
    expect(done.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(150_000);
    expect(invoiceStatusWords((await invoiceDocument(t.organizationId, invoice.id))!)).toBe("Paid · credit note");
  });
});

describe("a partial credit note on a bank transfer still awaited", () => {
  it("leaves the rest to pay by transfer, and reconciling it credits what was paid", async () => {
    const a = await admin();
    const t = await tenant("Malindi Kite Surfing");
    const { invoiceId, payment } = await startBankTransfer(t.actor, { amount: "2320" });
    await disputeInvoice(t.actor, invoiceId!, "We agreed a discount of KES 1,500 on this first top-up.");
    const [{ id }] = (await rawQuery<{ id: string }>(`select id from invoice_disputes where invoice_id = $1`, [invoiceId])) as [
      { id: string },
    ];
    const credited = await run(
      withParams(disputeAction, { id }),
      formRequest(`/admin/billing/disputes/${id}`, { intent: "credit", amount: "1500" }, { cookie: a.cookie }),
    );
    expect(credited.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(0);
    const doc = (await invoiceDocument(t.organizationId, invoiceId!))!;
    expect(invoiceStatusWords(doc)).toBe("Partly credited");
    expect(transferReference(doc)).toBe(payment.reference);
    const reconciled = await run(
      withParams(invoiceAction, { id: invoiceId! }),
      formRequest(
        `/admin/billing/invoices/${invoiceId}`,
        { intent: "reconcile", reference: "NCBA-FT-40820", paymentDate: today(), note: "" },
        { cookie: a.cookie },
      ),
    );
    expect(reconciled.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(82_000);
    expect(invoiceStatusWords((await invoiceDocument(t.organizationId, invoiceId!))!)).toBe("Paid · credit note");
  });
});

describe("one reference per bank transfer", () => {
  it("shows the transfer's reference on the document and finds the invoice by it or by its number", async () => {
    const a = await admin();
    const t = await tenant("Taita Hills Honey");
    const { payment, invoiceId } = await startBankTransfer(t.actor, { amount: "4000" });
    const doc = (await invoiceDocument(t.organizationId, invoiceId!))!;
    expect(transferReference(doc)).toBe(payment.reference);
    const filters = (q: string) => parseInvoiceFilters(new URLSearchParams({ q }));
    const scope = { kind: "platform" } as const;
    const byReference = await adminInvoicePage(scope, filters(payment.reference!));
    expect(byReference.rows.map((r) => r.id)).toEqual([invoiceId]);
    const byNumber = await adminInvoicePage(scope, filters(doc.number));
    expect(byNumber.rows.map((r) => r.id)).toEqual([invoiceId]);
    // The reminder e-mail quotes the same one reference.
    await run(
      withParams(invoiceAction, { id: invoiceId! }),
      formRequest(`/admin/billing/invoices/${invoiceId}`, { intent: "reminder" }, { cookie: a.cookie }),
    );
    const mail = await latestMailTo(t.email);
    expect(mail?.textBody).toContain(`quote the reference ${payment.reference}.`);
  });
});

describe("the ledger names who reconciled", () => {
  it("records the administrator on the wallet credit of a reconciled transfer", async () => {
    const a = await admin();
    const t = await tenant("Lamu Dhow Tours");
    const { invoiceId } = await startBankTransfer(t.actor, { amount: "2500" });
    const done = await run(
      withParams(invoiceAction, { id: invoiceId! }),
      formRequest(
        `/admin/billing/invoices/${invoiceId}`,
        { intent: "reconcile", reference: "NCBA-FT-40001", paymentDate: today(), note: "" },
        { cookie: a.cookie },
      ),
    );
    expect(done.status).toBe(302);
    const [entry] = await rawQuery<{ created_by: string }>(
      `select created_by from wallet_entries where organization_id = $1 and kind = 'topup'`,
      [t.organizationId],
    );
    expect(entry!.created_by).toBe(a.user.id);
  });
});

describe("a receipt is not a tax invoice", () => {
  it("titles a postpaid top-up a receipt and names the monthly tax invoice that covers it, as it stood when issued", async () => {
    const t = await tenant("Nanyuki Dairy Cooperative", "postpaid");
    const { payment } = await db().transaction((tx) =>
      createPayment(tx, { organizationId: t.organizationId, method: "mpesa", amountCents: 100_000, phone: "254712345678" }),
    );
    await completePayment(payment.id, { receipt: "TK40RCPT01", via: "test" });
    const [{ id }] = (await rawQuery<{ id: string }>(`select id from invoices where payment_id = $1`, [payment.id])) as [{ id: string }];
    const receipt = (await invoiceDocument(t.organizationId, id))!;
    expect(receipt.number).toMatch(/^RCT-/);
    expect(documentTitle(receipt)).toBe("RECEIPT");
    const month = `${today().slice(0, 7)}-01`;
    expect(receipt.coveredBy).toEqual({ number: null, month });
    // The month's tax invoice issued later does not change the receipt's words (issue 72, decision 105).
    const period = await db().transaction((tx) =>
      issueInvoice(tx, {
        organizationId: t.organizationId,
        series: "INV",
        kind: "subscription",
        status: "pending",
        description: "Postpaid month",
        lines: [lineFromGross({ description: "Messages", itemCode: "JMB-MSG", quantity: 1, unit: "month", unitPriceCents: 5_000 })],
        pricesIncludeVat: true,
        periodStart: month,
        periodEnd: today(),
      }),
    );
    expect(period.number).toMatch(/^INV-/);
    expect((await invoiceDocument(t.organizationId, id))!.coveredBy).toEqual({ number: null, month });
  });
});

describe("reminders word the due date by the date", () => {
  it("says is due for a date ahead, was due for one passed, with the date written out", () => {
    const now = new Date("2026-11-25T09:00:00Z");
    expect(dueWords("2026-12-08T21:00:00.000Z", now)).toBe(" is due on 9 December 2026");
    expect(dueWords("2026-11-09T09:00:00.000Z", now)).toBe(" was due on 9 November 2026");
    expect(dueWords("2026-11-25T15:00:00.000Z", now)).toBe(" is due today, 25 November 2026");
    expect(dueWords(null, now)).toBe(" is awaiting payment");
  });

  it("e-mails an invoice due next week as due, not as was due", async () => {
    const a = await admin();
    const t = await tenant("Kitui Mango Sellers");
    const due = new Date(Date.now() + 14 * 86_400_000);
    const invoice = await monthly(t.organizationId, 1_160, "pending", due);
    const sent = await run(
      withParams(invoiceAction, { id: invoice.id }),
      formRequest(`/admin/billing/invoices/${invoice.id}`, { intent: "reminder" }, { cookie: a.cookie }),
    );
    expect(sent.status).toBe(302);
    const mail = await latestMailTo(t.email);
    expect(mail?.textBody).toMatch(/, is due on \d{1,2} [A-Z][a-z]+ \d{4}\./);
    expect(mail?.textBody).not.toContain("was due");
    expect(mail?.textBody).toContain(`quote the reference ${invoice.number}.`);
  });
});
