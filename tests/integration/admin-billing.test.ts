import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { completePayment, createPayment } from "~/.server/domains/billing/payments";
import { walletState } from "~/.server/domains/billing/ledger";
import { disputeInvoice } from "~/.server/domains/billing/settings";
import { listInvoices } from "~/.server/domains/billing/invoices";
import { countAdminActions } from "~/.server/domains/admin/audit";
import { adminInvoicePage, parseInvoiceFilters } from "~/.server/domains/admin/billing/invoice-table";
import { loader as billingLoader } from "~/routes/admin/billing";
import { loader as exportLoader } from "~/routes/admin/billing-export";
import { loader as invoiceLoader, action as invoiceAction } from "~/routes/admin/invoice";
import { loader as pdfLoader } from "~/routes/admin/invoice-pdf";
import { loader as disputeLoader, action as disputeAction } from "~/routes/admin/dispute";
import { loader as walletLoader, action as walletAction } from "~/routes/admin/wallet";
import { loader as tenantInvoiceLoader } from "~/routes/app/billing/invoice";
import { APP, formRequest, getRequest, run } from "../support/http";

/** A route's loader or action called with these params (the run() of tests/support/http.ts hands the request). */
const withParams = (handler: (args: never) => unknown, params: Record<string, string>) => (args: never) =>
  handler({ ...(args as object), params } as never);
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, latestMailTo, signedInCookie } from "../support/accounts";

// Issue 19, the admin console's Billing tab: its figures against the data, the invoice table's search,
// filters, order and pages, 404s, reconciling a bank transfer once (repeated and concurrent), the
// step-up, disputes resolved by a credit note or rejected (the tenant sees it), wallet adjustments,
// reminders by e-mail, and an audit record for each action.

/** A route handler with its URL parameters, as React Router would call it. */

/** The one refusal in a Billing console form's reply: its form's intent, the sentence, and its field (none: the whole form). */
function refusalIn(page: { intent: string; result: { error: Record<string, string[]> } }) {
  const [field, messages] = Object.entries(page.result.error)[0]!;
  return { intent: page.intent, message: messages[0], ...(field ? { field } : {}) };
}

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function tenant(name: string, plan = "Growth", billingType: "prepaid" | "postpaid" = "prepaid") {
  const account = await createVerifiedUser({ businessName: name });
  await rawQuery(`update organizations set plan_type = $2, billing_type = $3 where id = $1`, [account.organization.id, plan, billingType]);
  return {
    ...account,
    organizationId: account.organization.id,
    actor: { organizationId: account.organization.id, userId: account.user.id },
  };
}

/** An invoice of `shillings` (VAT inside) with the status and plan given. */
async function invoice(
  organizationId: string,
  shillings: number,
  options: {
    status?: "paid" | "pending" | "overdue" | "void";
    plan?: string;
    series?: "INV" | "RCT";
    method?: "mpesa" | "card" | "bank";
  } = {},
) {
  const status = options.status ?? "paid";
  return db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: options.series ?? "INV",
      kind: "subscription",
      status,
      description: "Postpaid month",
      lines: [lineFromGross({ description: "Messages", itemCode: "JMB-MSG", quantity: 1, unit: "month", unitPriceCents: shillings * 100 })],
      pricesIncludeVat: true,
      dueAt: new Date(Date.now() + 7 * 86_400_000),
      paidAt: status === "paid" ? new Date() : null,
      planType: options.plan ?? "Growth",
      billingType: "postpaid",
      paymentMethod: options.method ?? null,
    }),
  );
}

const balance = async (organizationId: string) => (await walletState(db(), organizationId)).balanceCents;
const stale = (userId: string) => rawQuery(`update sessions set confirmed_at = now() - interval '11 minutes' where user_id = $1`, [userId]);

async function bankTransfer(t: Awaited<ReturnType<typeof tenant>>, shillings: number) {
  const { payment, invoiceId } = await startBankTransfer(t.actor, { amount: String(shillings) });
  return { paymentId: payment.id, invoiceId: invoiceId!, reference: payment.reference! };
}

const today = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

describe("the Billing tab's page", () => {
  it("answers 404 to a member and for unknown invoices, disputes and wallets", async () => {
    const a = await admin();
    const member = await tenant("Duka la Mama Ltd");
    const memberCookie = await signedInCookie(member.email, member.password);
    expect((await run(billingLoader, getRequest("/admin/billing", { cookie: memberCookie }))).status).toBe(404);
    expect((await run(billingLoader, getRequest("/admin/billing"))).status).toBe(404);
    const unknown = "00000000-0000-4000-8000-000000000000";
    for (const [handler, path] of [
      [invoiceLoader, `/admin/billing/invoices/${unknown}`],
      [pdfLoader, `/admin/billing/invoices/${unknown}/pdf`],
      [disputeLoader, `/admin/billing/disputes/${unknown}`],
      [walletLoader, `/admin/billing/wallets/${unknown}`],
    ] as const) {
      expect((await run(handler, getRequest(path, { cookie: a.cookie }), { params: { id: unknown } })).status).toBe(404);
      expect((await run(handler, getRequest(path, { cookie: a.cookie }), { params: { id: "not-an-id" } })).status).toBe(404);
    }
    // A real one is 200 for the administrator and 404 to the tenant it belongs to.
    const mine = await invoice(member.organizationId, 100);
    expect(
      (await run(invoiceLoader, getRequest(`/admin/billing/invoices/${mine.id}`, { cookie: a.cookie }), { params: { id: mine.id } }))
        .status,
    ).toBe(200);
    expect(
      (await run(invoiceLoader, getRequest(`/admin/billing/invoices/${mine.id}`, { cookie: memberCookie }), { params: { id: mine.id } }))
        .status,
    ).toBe(404);
    const pdf = await run(pdfLoader, getRequest(`/admin/billing/invoices/${mine.id}/pdf`, { cookie: a.cookie }), {
      params: { id: mine.id },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
  });

  it("totals invoiced, paid, outstanding and overdue, and breaks revenue down by plan and by method", async () => {
    const a = await admin();
    const figures = async () => (await run(billingLoader, getRequest("/admin/billing?period=all", { cookie: a.cookie }))).data;
    const before = await figures();
    const one = await tenant("Nyota Savings Sacco", "Growth");
    const two = await tenant("Kilimo Bora Co-operative", "Starter");
    await invoice(one.organizationId, 1_000, { status: "paid", plan: "Growth" });
    await invoice(one.organizationId, 500, { status: "pending", plan: "Growth" });
    await invoice(one.organizationId, 300, { status: "overdue", plan: "Growth" });
    await invoice(one.organizationId, 200, { status: "void", plan: "Growth" });
    await invoice(two.organizationId, 2_000, { status: "paid", plan: "Starter" });
    await invoice(two.organizationId, 700, { status: "paid", plan: "Starter", series: "RCT" }); // a receipt on account: not invoiced
    // A card top-up of KES 100: its tax invoice (Growth, paid) and the money in by card.
    const { payment } = await db().transaction((tx) =>
      createPayment(tx, { organizationId: one.organizationId, method: "card", amountCents: 10_000, reference: `T-${Date.now()}` }),
    );
    await completePayment(payment.id, { receipt: `PSK-${Date.now()}`, via: "test" });
    const after = await figures();
    const delta = (k: string) => after.totals[k] - before.totals[k];
    expect(delta("invoicedCents")).toBe(390_000);
    expect(delta("paidCents")).toBe(310_000);
    expect(delta("outstandingCents")).toBe(80_000);
    expect(delta("overdueCents")).toBe(30_000);
    type Figures = { byPlan: { label: string; amountCents: number }[]; byMethod: { key: string; amountCents: number }[] };
    const plan = (data: Figures, name: string) => data.byPlan.find((l) => l.label === name)?.amountCents ?? 0;
    expect(plan(after, "Growth") - plan(before, "Growth")).toBe(110_000);
    expect(plan(after, "Starter") - plan(before, "Starter")).toBe(200_000);
    const method = (data: Figures, key: string) => data.byMethod.find((l) => l.key === key)!.amountCents;
    expect(method(after, "card") - method(before, "card")).toBe(10_000);
    expect((after as Figures).byMethod.map((l) => l.key)).toEqual(["mpesa", "c2b", "card", "bank"]);
  });

  it("searches by invoice number, business and e-mail, filters by status and plan, and pages both ways by keyset", async () => {
    const a = await admin();
    const t = await tenant("Pwani Fresh Fish Traders", "Enterprise");
    const made = [];
    for (let i = 1; i <= 5; i++)
      made.push(await invoice(t.organizationId, i * 100, { status: i % 2 ? "paid" : "overdue", plan: "Enterprise" }));
    const other = await tenant("Mlima Hardware", "Starter");
    await invoice(other.organizationId, 50, { status: "overdue", plan: "Starter" });
    const page = async (query: string) =>
      (await run(billingLoader, getRequest(`/admin/billing?${query}`, { cookie: a.cookie }))).data.invoices.rows as {
        invoiceNumber: string;
        businessName: string;
        amountCents: number;
        plan: string;
        status: string;
      }[];

    expect((await page(`q=${made[2]!.number}`)).map((r) => r.invoiceNumber)).toEqual([made[2]!.number]);
    expect((await page("q=pwani fresh")).length).toBe(5);
    expect((await page(`q=${encodeURIComponent(t.email)}`)).every((r) => r.businessName === "Pwani Fresh Fish Traders")).toBe(true);
    const overdue = await page("q=pwani&status=overdue");
    expect(overdue.map((r) => r.amountCents).sort()).toEqual([20_000, 40_000]);
    expect((await page("status=overdue&plan=starter")).every((r) => r.plan === "Starter" && r.status === "overdue")).toBe(true);
    expect((await page("status=overdue&plan=starter")).some((r) => r.businessName === "Mlima Hardware")).toBe(true);
    // Sorted by amount, ascending: 100 ... 500 for this business.
    expect((await page("q=pwani&sort=amount&dir=asc")).map((r) => r.amountCents)).toEqual([10_000, 20_000, 30_000, 40_000, 50_000]);

    // Two at a time: three pages forwards, then back again.
    const filters = parseInvoiceFilters(new URLSearchParams("q=pwani&sort=amount&dir=desc"));
    const scope = { kind: "platform" } as const;
    const p1 = await adminInvoicePage(scope, filters, {}, 2);
    const p2 = await adminInvoicePage(scope, filters, { after: p1.next }, 2);
    const p3 = await adminInvoicePage(scope, filters, { after: p2.next }, 2);
    expect([p1, p2, p3].map((p) => p.rows.map((r) => r.amountCents / 100))).toEqual([[500, 400], [300, 200], [100]]);
    expect(p1.previous).toBeNull();
    expect(p3.next).toBeNull();
    const back = await adminInvoicePage(scope, filters, { before: p3.previous }, 2);
    expect(back.rows.map((r) => r.amountCents / 100)).toEqual([300, 200]);
    // A cursor nobody wrote is the first page, never an error.
    expect((await page("q=pwani&after=garbage")).length).toBe(5);

    const csv = await run(exportLoader, getRequest("/admin/billing/export.csv?q=pwani&status=overdue", { cookie: a.cookie }));
    expect(csv.status).toBe(200);
    const lines = String(csv.data).trim().split("\n");
    expect(lines[0]).toContain(`"Invoice number","Business","Email","Plan","Amount (KES)"`);
    expect(lines.length).toBe(3);
    expect(lines.slice(1).every((l) => l.includes("Pwani Fresh Fish Traders") && l.includes("overdue"))).toBe(true);
  });
});

describe("reconciling a bank transfer", () => {
  const reconcile = (cookie: string, invoiceId: string, fields: Record<string, string> = {}) =>
    run(
      withParams(invoiceAction, { id: invoiceId }),
      formRequest(
        `/admin/billing/invoices/${invoiceId}`,
        {
          intent: "reconcile",
          reference: `NCBA-FT-${invoiceId.slice(0, 8)}`,
          paymentDate: today(),
          note: "Seen on the statement",
          ...fields,
        },
        { cookie },
      ),
    );

  it("credits the wallet once, with the payment date, notes and who, however often it is submitted, and records it", async () => {
    const a = await admin();
    const t = await tenant("Baraka Matatu Sacco");
    const transfer = await bankTransfer(t, 25_000);
    const view = await run(invoiceLoader, getRequest(`/admin/billing/invoices/${transfer.invoiceId}`, { cookie: a.cookie }), {
      params: { id: transfer.invoiceId },
    });
    expect(view.data.invoice.reconcilable).toBe(true);
    const start = await balance(t.organizationId);

    const paidOn = today();
    const done = await reconcile(a.cookie, transfer.invoiceId, { paymentDate: paidOn, reference: "NCBA-FT-26328-777" });
    expect(done.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(start + 2_500_000);
    const [stored] = await rawQuery<{
      status: string;
      reconciled: boolean;
      reconciled_by: string;
      reconciliation_note: string;
      paid_day: string;
    }>(
      `select status, reconciled, reconciled_by, reconciliation_note, to_char(paid_at at time zone 'Africa/Nairobi', 'YYYY-MM-DD') as paid_day
       from invoices where id = $1`,
      [transfer.invoiceId],
    );
    expect(stored).toEqual({
      status: "paid",
      reconciled: true,
      reconciled_by: a.user.id,
      reconciliation_note: "Seen on the statement",
      paid_day: paidOn,
    });
    expect(await countAdminActions("invoice.reconcile", transfer.invoiceId)).toBe(1);

    // Again (a second submit): refused, in words, nothing more credited or recorded.
    const again = await reconcile(a.cookie, transfer.invoiceId);
    expect(again.status).toBe(409);
    expect(refusalIn(again.data).message).toMatch(/already reconciled/);
    expect(await balance(t.organizationId)).toBe(start + 2_500_000);
    expect(await countAdminActions("invoice.reconcile", transfer.invoiceId)).toBe(1);
    const topups = await rawQuery(`select id from wallet_entries where organization_id = $1 and kind = 'topup'`, [t.organizationId]);
    expect(topups.length).toBe(1);
  });

  it("credits once when two administrators (or a double click) submit at the same moment", async () => {
    const a = await admin();
    const b = await admin();
    const t = await tenant("Tausi Salon");
    const transfer = await bankTransfer(t, 4_000);
    const start = await balance(t.organizationId);
    const outcomes = await Promise.all([
      reconcile(a.cookie, transfer.invoiceId, { reference: "EQ-1" }),
      reconcile(b.cookie, transfer.invoiceId, { reference: "EQ-2" }),
      reconcile(a.cookie, transfer.invoiceId, { reference: "EQ-1" }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual([302, 409, 409]);
    expect(await balance(t.organizationId)).toBe(start + 400_000);
    expect(await countAdminActions("invoice.reconcile", transfer.invoiceId)).toBe(1);
  });

  it("is offered and accepted only on an unpaid invoice or transfer, and a bank reference credits once", async () => {
    const a = await admin();
    const t = await tenant("Amani Pharmacy");
    const paid = await invoice(t.organizationId, 900, { status: "paid", method: "card" });
    const voided = await invoice(t.organizationId, 900, { status: "void" });
    for (const [id, refusal] of [
      [paid.id, /is already paid: there is no transfer left to reconcile/],
      [voided.id, /Only an unpaid invoice or a bank transfer awaiting its money/],
    ] as const) {
      const view = await run(invoiceLoader, getRequest(`/admin/billing/invoices/${id}`, { cookie: a.cookie }), { params: { id } });
      expect(view.data.invoice.reconcilable).toBe(false);
      const refused = await reconcile(a.cookie, id);
      expect(refused.status).toBe(409);
      expect(refusalIn(refused.data).message).toMatch(refusal);
    }
    // Bad input: a clear 422, nothing done.
    const transfer = await bankTransfer(t, 1_000);
    expect(refusalIn((await reconcile(a.cookie, transfer.invoiceId, { reference: "" })).data)).toMatchObject({ field: "reference" });
    expect(refusalIn((await reconcile(a.cookie, transfer.invoiceId, { paymentDate: "2999-01-01" })).data)).toMatchObject({
      field: "paymentDate",
    });
    expect((await reconcile(a.cookie, transfer.invoiceId, { paymentDate: "yesterday" })).status).toBe(422);
    // The same statement line cannot pay two transfers.
    const first = await bankTransfer(t, 1_500);
    expect((await reconcile(a.cookie, first.invoiceId, { reference: "KCB-SAME-1" })).status).toBe(302);
    const second = await reconcile(a.cookie, transfer.invoiceId, { reference: "KCB-SAME-1" });
    expect(second.status).toBe(409);
    expect(refusalIn(second.data)).toMatchObject({ field: "reference" });
    expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [transfer.invoiceId]))[0]!.status).toBe(
      "pending",
    );
  });

  it("asks a stale session for the password: refused without it or with a wrong one, nothing changed; done with the right one", async () => {
    const a = await admin();
    const t = await tenant("Simba Logistics");
    const transfer = await bankTransfer(t, 2_000);
    const start = await balance(t.organizationId);
    await stale(a.user.id);
    const view = await run(invoiceLoader, getRequest(`/admin/billing/invoices/${transfer.invoiceId}`, { cookie: a.cookie }), {
      params: { id: transfer.invoiceId },
    });
    expect(view.data.stepUp).toBe(true);
    const without = await reconcile(a.cookie, transfer.invoiceId);
    expect(without.status).toBe(400);
    expect(refusalIn(without.data)).toMatchObject({ field: "confirmation" });
    const wrong = await reconcile(a.cookie, transfer.invoiceId, { confirmation: "not my password" });
    expect(wrong.status).toBe(400);
    expect(await balance(t.organizationId)).toBe(start);
    expect(await countAdminActions("invoice.reconcile", transfer.invoiceId)).toBe(0);
    const right = await reconcile(a.cookie, transfer.invoiceId, { confirmation: a.password });
    expect(right.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(start + 200_000);
  });
});

describe("disputes", () => {
  const resolve = (cookie: string, disputeId: string, fields: Record<string, string>) =>
    run(withParams(disputeAction, { id: disputeId }), formRequest(`/admin/billing/disputes/${disputeId}`, fields, { cookie }));
  const disputeOf = async (invoiceId: string) =>
    (
      await rawQuery<{ id: string }>(`select id from invoice_disputes where invoice_id = $1 order by created_at desc limit 1`, [invoiceId])
    )[0]!.id;
  /** An administrator, and a new tenant's invoice of `shillings` that the tenant disputes for `reason`. */
  async function disputed(business: string, shillings: number, status: "paid" | "pending" | "overdue", reason: string) {
    const a = await admin();
    const t = await tenant(business);
    const disputedInvoice = await invoice(t.organizationId, shillings, { status });
    await disputeInvoice(t.actor, disputedInvoice.id, reason);
    return { a, t, invoice: disputedInvoice, id: await disputeOf(disputedInvoice.id) };
  }

  it("resolves by a credit note: a CRN document crediting part of a paid invoice to the wallet, which the tenant sees", async () => {
    const reason = "We were charged for messages that never went out.";
    const { a, t, invoice: paid, id } = await disputed("Jua Kali Welders", 3_000, "paid", reason);
    const page = await run(disputeLoader, getRequest(`/admin/billing/disputes/${id}`, { cookie: a.cookie }), { params: { id } });
    expect(page.data.dispute.reason).toBe(reason);
    const listed = await run(billingLoader, getRequest("/admin/billing", { cookie: a.cookie }));
    expect(listed.data.openDisputes.some((d: { id: string }) => d.id === id)).toBe(true);
    const start = await balance(t.organizationId);

    expect(refusalIn((await resolve(a.cookie, id, { intent: "credit", amount: "5000" })).data)).toMatchObject({ field: "amount" });
    const done = await resolve(a.cookie, id, { intent: "credit", amount: "1,200", note: "Refund of the failed batch." });
    expect(done.status).toBe(302);
    const [d] = await rawQuery<{ outcome: string; status: string; credit_note_id: string }>(
      `select outcome, status, credit_note_id from invoice_disputes where id = $1`,
      [id],
    );
    expect(d).toMatchObject({ outcome: "credited", status: "resolved" });
    const [crn] = await rawQuery<{ number: string; kind: string; series: string; credits_invoice_id: string; total_cents: string }>(
      `select number, kind, series, credits_invoice_id, total_cents::text from invoices where id = $1`,
      [d!.credit_note_id],
    );
    expect(crn).toMatchObject({ kind: "credit_note", series: "CRN", credits_invoice_id: paid.id, total_cents: "120000" });
    expect(crn!.number).toMatch(/^CRN-\d{4}-\d{6}$/);
    expect(await balance(t.organizationId)).toBe(start + 120_000);
    expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [paid.id]))[0]!.status).toBe("paid");
    expect(await countAdminActions("dispute.credit", id)).toBe(1);
    // A second resolution is refused.
    expect((await resolve(a.cookie, id, { intent: "reject", note: "Changed my mind" })).status).toBe(409);
    // The tenant sees it in the invoice list and on the invoice.
    const rows = await listInvoices(t.organizationId);
    expect(rows.find((r) => r.id === paid.id)!.disputeOutcome).toMatchObject({ outcome: "credited", creditNoteNumber: crn!.number });
    expect(rows.some((r) => r.number === crn!.number)).toBe(true);
    const tenantCookie = await signedInCookie(t.email, t.password);
    const tenantView = await run(tenantInvoiceLoader, getRequest(`/billing/invoices/${paid.id}`, { cookie: tenantCookie }), {
      params: { id: paid.id },
    });
    expect(tenantView.data.resolved).toMatchObject({ outcome: "credited", note: "Refund of the failed batch." });
  });

  it("voids an unpaid invoice credited in full", async () => {
    const { a, t, invoice: pending, id } = await disputed("Maji Safi Water", 800, "pending", "We cancelled before this month started.");
    const start = await balance(t.organizationId);
    expect((await resolve(a.cookie, id, { intent: "credit", amount: "" })).status).toBe(302);
    expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [pending.id]))[0]!.status).toBe("void");
    expect(await balance(t.organizationId)).toBe(start);
  });

  it("rejects with a note the tenant sees, restoring the invoice's status", async () => {
    const { a, t, invoice: overdue, id } = await disputed("Sokoni Traders", 1_500, "overdue", "The overage price is not what we agreed.");
    expect(refusalIn((await resolve(a.cookie, id, { intent: "reject", note: "" })).data)).toMatchObject({ field: "note" });
    expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [overdue.id]))[0]!.status).toBe("disputed");
    const done = await resolve(a.cookie, id, { intent: "reject", note: "The Growth overage is KES 1.00 a message, as on the price list." });
    expect(done.status).toBe(302);
    expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [overdue.id]))[0]!.status).toBe("overdue");
    expect(await countAdminActions("dispute.reject", id)).toBe(1);
    const tenantCookie = await signedInCookie(t.email, t.password);
    const tenantView = await run(tenantInvoiceLoader, getRequest(`/billing/invoices/${overdue.id}`, { cookie: tenantCookie }), {
      params: { id: overdue.id },
    });
    expect(tenantView.data.resolved).toMatchObject({
      outcome: "rejected",
      note: "The Growth overage is KES 1.00 a message, as on the price list.",
    });
    const listed = await run(billingLoader, getRequest("/admin/billing", { cookie: a.cookie }));
    expect(listed.data.resolvedDisputes.find((d: { id: string }) => d.id === id)).toMatchObject({ outcome: "rejected" });
  });

  it("asks a stale session for the password before crediting or rejecting: refused without it or with a wrong one, nothing changed", async () => {
    const { a, t, invoice: paid, id } = await disputed("Tumaini Bakery", 2_500, "paid", "Two top-ups were charged for one order.");
    const fresh = await run(disputeLoader, getRequest(`/admin/billing/disputes/${id}`, { cookie: a.cookie }), { params: { id } });
    expect(fresh.data.stepUp).toBe(false);
    await stale(a.user.id);
    const page = await run(disputeLoader, getRequest(`/admin/billing/disputes/${id}`, { cookie: a.cookie }), { params: { id } });
    expect(page.data.stepUp).toBe(true);
    // As served: each form (credit, reject) carries its own password field.
    const served = await appFetch(
      new Request(`${APP}/admin/billing/disputes/${id}`, { headers: { cookie: a.cookie, "user-agent": "vitest" } }),
    );
    const html = await served.text();
    for (const form of ["credit", "reject"]) {
      const input = html.match(new RegExp(`<input[^>]*id="${form}-confirmation"[^>]*>`))?.[0];
      expect(input).toContain('name="confirmation"');
      expect(input).toContain('type="password"');
    }
    const start = await balance(t.organizationId);
    const unchanged = async () => {
      const [d] = await rawQuery<{ status: string; outcome: string | null; credit_note_id: string | null }>(
        `select status, outcome, credit_note_id from invoice_disputes where id = $1`,
        [id],
      );
      expect(d).toEqual({ status: "open", outcome: null, credit_note_id: null });
      expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [paid.id]))[0]!.status).toBe("disputed");
      const notes = await rawQuery(`select id from invoices where credits_invoice_id = $1`, [paid.id]);
      expect(notes).toHaveLength(0);
      expect(await balance(t.organizationId)).toBe(start);
      expect(await countAdminActions("dispute.credit", id)).toBe(0);
      expect(await countAdminActions("dispute.reject", id)).toBe(0);
    };

    for (const fields of <Record<string, string>[]>[
      { intent: "credit", amount: "500", note: "Refund of the second top-up." },
      { intent: "reject", note: "Only one top-up reached us." },
    ]) {
      const without = await resolve(a.cookie, id, fields);
      expect(without.status).toBe(400);
      // The form comes back with what was typed (never the password).
      expect(refusalIn(without.data)).toMatchObject({
        intent: fields.intent,
        message: "Confirm it is you: enter your password (or a code from your authenticator app).",
        field: "confirmation",
      });
      const wrong = await resolve(a.cookie, id, { ...fields, confirmation: "not my password" });
      expect(wrong.status).toBe(400);
      expect(wrong.data.result.initialValue).toMatchObject({ note: fields.note });
      expect(wrong.data.result.initialValue).not.toHaveProperty("confirmation");
      expect(refusalIn(wrong.data)).toMatchObject({
        intent: fields.intent,
        message: "That password or code is not right.",
        field: "confirmation",
      });
      await unchanged();
    }

    // An intent no form sends (an inherited name too): 400, nothing done.
    for (const intent of ["refund", "toString", ""])
      expect(refusalIn((await resolve(a.cookie, id, { intent, confirmation: a.password })).data)).toEqual({
        intent: "",
        message: "Unknown action.",
      });
    await unchanged();

    // The right password: done, and the step-up holds for the next 10 minutes.
    const right = await resolve(a.cookie, id, {
      intent: "credit",
      amount: "500",
      note: "Refund of the second top-up.",
      confirmation: a.password,
    });
    expect(right.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(start + 50_000);
    expect(await countAdminActions("dispute.credit", id)).toBe(1);
    expect(
      (await run(disputeLoader, getRequest(`/admin/billing/disputes/${id}`, { cookie: a.cookie }), { params: { id } })).data.stepUp,
    ).toBe(false);
  });

  it("rejects on a stale session with the right password", async () => {
    const { a, invoice: overdue, id } = await disputed("Upendo Salon", 900, "overdue", "We left the Growth plan in October.");
    await stale(a.user.id);
    expect((await resolve(a.cookie, id, { intent: "reject", note: "You moved in November." })).status).toBe(400);
    expect(await countAdminActions("dispute.reject", id)).toBe(0);
    const done = await resolve(a.cookie, id, { intent: "reject", note: "You moved in November.", confirmation: a.password });
    expect(done.status).toBe(302);
    expect((await rawQuery<{ status: string }>(`select status from invoices where id = $1`, [overdue.id]))[0]!.status).toBe("overdue");
    expect(await countAdminActions("dispute.reject", id)).toBe(1);
  });
});

describe("wallet adjustments and reminders", () => {
  const adjust = (cookie: string, organizationId: string, fields: Record<string, string>) =>
    run(
      withParams(walletAction, { id: organizationId }),
      formRequest(`/admin/billing/wallets/${organizationId}`, { intent: "adjust", ...fields }, { cookie }),
    );

  it("credits and debits with a reason through the ledger, never below zero, behind the step-up, with before and after recorded", async () => {
    const a = await admin();
    const t = await tenant("Bidii Youth Group");
    const credited = await adjust(a.cookie, t.organizationId, {
      direction: "credit",
      amount: "500",
      reason: "Goodwill for the outage on 12 November",
    });
    expect(credited.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(50_000);
    const [entry] = await rawQuery<{ kind: string; created_by: string; amount_cents: string }>(
      `select kind, created_by, amount_cents::text from wallet_entries where organization_id = $1 order by id desc limit 1`,
      [t.organizationId],
    );
    expect(entry).toEqual({ kind: "adjustment", created_by: a.user.id, amount_cents: "50000" });

    const tooMuch = await adjust(a.cookie, t.organizationId, { direction: "debit", amount: "600", reason: "Reverse a duplicate credit" });
    expect(tooMuch.status).toBe(409);
    expect(refusalIn(tooMuch.data).message).toMatch(/below zero: nothing was changed/);
    expect(await balance(t.organizationId)).toBe(50_000);
    expect(refusalIn((await adjust(a.cookie, t.organizationId, { direction: "debit", amount: "100", reason: "" })).data)).toMatchObject({
      field: "reason",
    });
    expect((await adjust(a.cookie, t.organizationId, { direction: "debit", amount: "abc", reason: "Something" })).status).toBe(422);

    await stale(a.user.id);
    expect((await adjust(a.cookie, t.organizationId, { direction: "debit", amount: "100", reason: "Reverse part of it" })).status).toBe(
      400,
    );
    expect(await balance(t.organizationId)).toBe(50_000);
    const debited = await adjust(a.cookie, t.organizationId, {
      direction: "debit",
      amount: "100",
      reason: "Reverse part of it",
      confirmation: a.password,
    });
    expect(debited.status).toBe(302);
    expect(await balance(t.organizationId)).toBe(40_000);
    const records = await rawQuery<{ before: unknown; after: unknown; reason: string }>(
      `select before, after, reason from admin_audit_log where action = 'wallet.adjust' and target_id = $1 order by id`,
      [t.organizationId],
    );
    const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v) as { balanceCents: number };
    expect(records.map((r) => [parse(r.before).balanceCents, parse(r.after).balanceCents, r.reason])).toEqual([
      [0, 50_000, "Goodwill for the outage on 12 November"],
      [50_000, 40_000, "Reverse part of it"],
    ]);
    const page = await run(walletLoader, getRequest(`/admin/billing/wallets/${t.organizationId}`, { cookie: a.cookie }), {
      params: { id: t.organizationId },
    });
    expect(page.data.wallet.entries[0]).toMatchObject({ kind: "adjustment", createdBy: a.email });
  });

  it("e-mails the owner a reminder of an unpaid invoice, counts it, and refuses a paid one", async () => {
    const a = await admin();
    const t = await tenant("Neema Catering");
    const unpaid = await invoice(t.organizationId, 2_400, { status: "overdue" });
    const remind = (id: string) =>
      run(withParams(invoiceAction, { id }), formRequest(`/admin/billing/invoices/${id}`, { intent: "reminder" }, { cookie: a.cookie }));
    expect((await remind(unpaid.id)).status).toBe(302);
    const mail = await latestMailTo(t.email);
    expect(mail?.subject).toBe(`Reminder: invoice ${unpaid.number} for KES 2,400.00`);
    expect(mail?.textBody).toContain("/billing");
    const [stored] = await rawQuery<{ reminders: number; last: boolean }>(
      `select reminders, last_reminder_at is not null as last from invoices where id = $1`,
      [unpaid.id],
    );
    expect(stored).toEqual({ reminders: 1, last: true });
    expect(await countAdminActions("invoice.reminder", unpaid.id)).toBe(1);

    const paid = await invoice(t.organizationId, 100, { status: "paid" });
    const refused = await remind(paid.id);
    expect(refused.status).toBe(409);
    expect(refusalIn(refused.data).message).toBe(`${paid.number} is paid: there is nothing to remind them of.`);
    expect(await countAdminActions("invoice.reminder", paid.id)).toBe(0);
  });
});
