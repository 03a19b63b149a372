import { test, expect } from "./fixtures";
import { adminPage, startBankTransfer } from "./billing-helpers";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 40, "Money", with JavaScript on and off: a bank transfer shows one reference; an administrator
// sees what a credit note will do before issuing it; a partial credit leaves the rest due, and the
// tenant's invoice says "Partly credited" with the amount still due. Each test makes its own tenant.

test("a partial credit note leaves the rest due: the administrator is told first, the tenant sees Partly credited", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const transfer = await startBankTransfer(page, "2,320");
  // One reference: the one the payer was given, once on the invoice.
  await expect(page.getByTestId("transfer-reference")).toHaveText(transfer.reference);
  await expect(page.getByText(transfer.reference, { exact: true })).toHaveCount(1);
  await field(page, `What is wrong with ${transfer.number}?`).fill("We agreed a discount of KES 1,500 on this first top-up.");
  await page.getByRole("button", { name: `Dispute ${transfer.number}` }).click();
  await expect(page.getByTestId("invoice-dispute")).toBeVisible();

  const admin = await adminPage(browser, javaScriptEnabled);
  await admin.goto("/admin/billing");
  await admin.getByRole("table", { name: "Open disputes" }).getByRole("link", { name: transfer.number }).click();
  await expect(admin.getByTestId("credit-effect")).toContainText(
    "Crediting part of it lowers what is due by that amount, and the rest stays due",
  );
  await field(admin, "Amount to credit (KES, VAT included)").fill("1500");
  await admin.getByRole("button", { name: "Issue credit note" }).click();
  await expect(admin.getByText(/Credit note CRN-\d{4}-\d{6} issued for KES 1,500.00: KES 820.00 of .* is still due\./)).toBeVisible();

  // The console's search finds it by the payer's reference.
  await admin.goto(`/admin/billing?q=${transfer.reference}`);
  const rows = admin.getByRole("table", { name: "Invoices across organisations" }).getByRole("row");
  await expect(rows.nth(1)).toContainText(transfer.number);
  await expect(rows.nth(1)).toContainText("Partly credited");

  await page.goto(`/billing/invoices/${transfer.invoiceId}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Partly credited");
  await expect(page.getByTestId("amount-due")).toHaveText("KES 820.00");
  await page.goto("/billing");
  const history = page.getByRole("table", { name: "Invoices" });
  await expect(history.getByRole("row").filter({ has: page.getByRole("link", { name: transfer.number, exact: true }) })).toContainText(
    "Partly credited",
  );
  await admin.context().close();
});
