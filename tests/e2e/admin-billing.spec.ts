import { test, expect } from "./fixtures";
import { adminPage, startBankTransfer } from "./billing-helpers";
import { ADMIN, field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 19, the admin console's Billing tab with JavaScript on and off: the tab's sections, a bank
// transfer a fresh tenant starts on /billing reconciled by the administrator (the tenant's invoice
// paid), disputes the tenant raises resolved by a rejection and by a credit note (the tenant sees
// each), the invoice pager's words (axe: tests/e2e/admin-a11y.spec.ts). The demo tenant is never
// touched: each test makes its own.

test("an administrator reconciles the bank transfer a new tenant started, and the tenant's invoice is paid", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const transfer = await startBankTransfer(page, "7,500");

  const admin = await adminPage(browser, javaScriptEnabled);
  await admin.goto("/admin/billing");
  const reconciliation = admin.getByRole("table", { name: "Unreconciled bank transfers" });
  await expect(reconciliation.getByRole("row").filter({ hasText: transfer.number })).toContainText(transfer.reference);
  await reconciliation.getByRole("link", { name: `Reconcile ${transfer.number}` }).click();
  await expect(admin).toHaveURL(new RegExp(`/admin/billing/invoices/${transfer.invoiceId}\\?dialog=reconcile$`));
  const dialog = admin.getByRole("dialog", { name: `Reconcile ${transfer.number}` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText(`The tenant was given ${transfer.reference}.`)).toBeVisible();

  // Nothing typed: refused at the field, nothing done.
  await dialog.getByRole("button", { name: "Mark as Reconciled" }).click();
  await expect(
    admin.getByRole("dialog", { name: `Reconcile ${transfer.number}` }).getByText("Enter the bank's reference for the transfer"),
  ).toBeVisible();
  // A statement amount other than the amount due: refused at the field in words, nothing done (issue 72).
  const wrong = admin.getByRole("dialog", { name: `Reconcile ${transfer.number}` });
  await field(wrong, "Bank reference").fill(`NCBA-FT-${transfer.reference.slice(-6)}`);
  await field(wrong, "Amount received (KES)").fill("750");
  await wrong.getByRole("button", { name: "Mark as Reconciled" }).click();
  await expect(
    admin
      .getByRole("dialog", { name: `Reconcile ${transfer.number}` })
      .getByText(`The statement's KES 750.00 is not the KES 7,500.00 due on ${transfer.number}.`),
  ).toBeVisible();
  const again = admin.getByRole("dialog", { name: `Reconcile ${transfer.number}` });
  await field(again, "Bank reference").fill(`NCBA-FT-${transfer.reference.slice(-6)}`);
  await field(again, "Amount received (KES)").fill("7,500.00");
  await field(again, "Notes").fill("Seen on the NCBA statement of today.");
  await again.getByRole("button", { name: "Mark as Reconciled" }).click();
  await expect(admin.getByText(`${transfer.number} reconciled: the wallet was credited once.`)).toBeVisible();
  await expect(admin.getByTestId("reconciled")).toContainText("Yes");
  await expect(admin.getByTestId("reconciled")).toContainText("Seen on the NCBA statement of today.");
  // The payer's value date and the bank's reference beside the reference the tenant was given, which stays on the document.
  await expect(admin.getByTestId("value-date")).toContainText("Value date given by the payer:");
  await expect(admin.getByTestId("bank-reference")).toHaveText(`Bank's reference: NCBA-FT-${transfer.reference.slice(-6)}`);
  await expect(admin.getByRole("article")).toContainText(transfer.reference);
  await expect(admin.getByRole("heading", { level: 1 })).toContainText("Paid");
  await expect(admin.getByRole("link", { name: "Reconcile", exact: true })).toHaveCount(0);

  // The tenant: the invoice is paid and the money is in the wallet.
  await page.goto("/billing");
  await expect(page.getByRole("table", { name: "Invoices" }).getByRole("row").filter({ hasText: transfer.number })).toContainText("Paid");
  await expect(page.getByTestId("billing-balance")).toHaveText("KES 7,500.00");
  await admin.context().close();
});

test("an administrator rejects one dispute with a note and credits another; the tenant sees both answers", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const first = await startBankTransfer(page, "1,500");
  const reason = "We never asked for this transfer; please cancel it.";
  await field(page, `What is wrong with ${first.number}?`).fill(reason);
  await page.getByRole("button", { name: `Dispute ${first.number}` }).click();
  await expect(page.getByTestId("invoice-dispute")).toContainText(reason);
  const second = await startBankTransfer(page, "2,000");
  await field(page, `What is wrong with ${second.number}?`).fill("The amount should have been KES 1,000, not 2,000.");
  await page.getByRole("button", { name: `Dispute ${second.number}` }).click();
  await expect(page.getByTestId("invoice-dispute")).toBeVisible();

  const admin = await adminPage(browser, javaScriptEnabled);
  await admin.goto("/admin/billing");
  const open = admin.getByRole("table", { name: "Open disputes" });
  await expect(open.getByRole("row").filter({ hasText: first.number })).toContainText(reason);
  await open.getByRole("link", { name: first.number }).click();
  await expect(admin.getByTestId("dispute-reason")).toHaveText(reason);
  // Resolving is a step-up action; the administrator signed in just now, so no password field
  // (tests/integration/admin-billing.test.ts covers a stale session).
  await expect(field(admin, "Your password or authenticator code")).toHaveCount(0);
  const note = "Our statement shows you did start it; pay it or let it lapse.";
  await field(admin, "Note to the tenant").fill(note);
  await admin.getByRole("button", { name: "Reject dispute" }).click();
  await expect(admin.getByText(`Dispute rejected: ${first.number} is pending again`)).toBeVisible();
  await expect(admin.getByTestId("dispute-resolution")).toContainText(note);

  await admin.goto("/admin/billing");
  await admin.getByRole("table", { name: "Open disputes" }).getByRole("link", { name: second.number }).click();
  await field(admin, "Amount to credit (KES, VAT included)").fill("2000");
  await admin.getByRole("button", { name: "Issue credit note" }).click();
  await expect(admin.getByText(/Credit note CRN-\d{4}-\d{6} issued for KES 2,000.00/)).toBeVisible();
  const creditNote = ((await admin.getByTestId("dispute-resolution").getByRole("link").textContent()) ?? "").trim();
  expect(creditNote).toMatch(/^CRN-\d{4}-\d{6}$/);
  await admin.goto("/admin/billing");
  await expect(admin.getByRole("table", { name: "Resolved disputes" }).getByRole("row").filter({ hasText: first.number })).toContainText(
    "Rejected",
  );

  // The tenant sees the rejection and its note, and the credit note in the history.
  await page.goto(`/billing/invoices/${first.invoiceId}`);
  await expect(page.getByTestId("invoice-dispute-outcome")).toContainText("Dispute rejected");
  await expect(page.getByTestId("invoice-dispute-outcome")).toContainText(note);
  await page.goto("/billing");
  const history = page.getByRole("table", { name: "Invoices" });
  const rowOf = (number: string) => history.getByRole("row").filter({ has: page.getByRole("link", { name: number, exact: true }) });
  await expect(rowOf(second.number)).toContainText(`credited by ${creditNote}`);
  await expect(rowOf(second.number)).toContainText("Void");
  await expect(rowOf(creditNote)).toContainText("Credit note for");
  await admin.context().close();
});

test("the Billing tab shows its figures, revenue, reconciliation, disputes and a filterable invoice table", async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password, { to: "/admin/billing" });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Billing");
  for (const label of ["invoiced", "paid", "outstanding", "overdue"]) await expect(page.getByTestId(`stat-${label}`)).toHaveText(/^KES /);
  await expect(page.getByRole("table", { name: "By payment method (money received)" })).toContainText("M-Pesa paybill (C2B)");
  // The demo data: other tenants with invoices, one bank transfer awaiting reconciliation and an open dispute.
  await expect(page.getByRole("table", { name: "Unreconciled bank transfers" })).toContainText("Savannah Fresh Dairies");
  await expect(page.getByRole("table", { name: "Open disputes" })).toContainText("Coastline Beach Hotels Ltd");

  await page.getByRole("link", { name: "All time" }).click();
  await expect(page).toHaveURL(/period=all/);
  const search = page.getByRole("search", { name: "Invoices" });
  await search.getByLabel("Search").fill("Mwangaza");
  await search.getByLabel("Status").selectOption("paid");
  await search.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/q=Mwangaza/);
  const rows = page.getByRole("table", { name: "Invoices across organisations" }).getByRole("row");
  await expect(rows.nth(1)).toContainText("Mwangaza Microfinance Bank");
  await expect(rows.nth(1)).toContainText("Paid");
  const csv = await page.request.get("/admin/billing/export.csv?q=Mwangaza&status=paid");
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toContain("Mwangaza Microfinance Bank");

  // The pager's words follow the order: Newer and Older by issue date, Previous and Next by amount.
  await page.goto("/admin/billing?period=all");
  const pager = page.getByRole("navigation", { name: "Invoice pages" });
  await expect(pager.getByRole("link", { name: "Older" })).toBeVisible();
  await page.getByRole("table", { name: "Invoices across organisations" }).getByRole("link", { name: "Amount" }).click();
  await expect(page).toHaveURL(/sort=amount/);
  await expect(pager.getByRole("link", { name: "Next" })).toBeVisible();
  await expect(pager).not.toContainText("Older");
  await pager.getByRole("link", { name: "Next" }).click();
  await expect(page).toHaveURL(/sort=amount.*after=/);
  await expect(pager.getByRole("link", { name: "Previous" })).toBeVisible();
});
