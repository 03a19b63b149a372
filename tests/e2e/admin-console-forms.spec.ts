import { test, expect } from "./fixtures";
import { adminPage, startBankTransfer } from "./billing-helpers";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 40, with JavaScript on and off: Edit User sets the plan, and the message limit follows the
// plan's price list unless an override with its reason is given (shown as such); a second reconcile
// of the same transfer, from a page opened before the first, says on the page what happened. Each
// test makes its own tenant (never the demo one).

test("Edit User: the limit follows the plan, and an override needs its reason and shows as one", async ({
  request,
  browser,
  javaScriptEnabled,
}) => {
  const tenant = await signUpAndVerifyViaApi(request);
  const admin = await adminPage(browser, javaScriptEnabled);
  await admin.goto(`/admin/users?q=${encodeURIComponent(tenant.businessName)}`);
  await admin.getByRole("link", { name: tenant.businessName }).click();
  await expect(admin.getByRole("heading", { level: 1, name: tenant.businessName })).toBeVisible();
  await expect(admin.getByTestId("message-limit-source")).toHaveText("The Starter plan's limit.");

  // The plan alone: Growth's 10,000 a month.
  await admin.getByRole("link", { name: "Edit User" }).click();
  let edit = admin.getByRole("dialog", { name: "Edit User" });
  await field(edit, "Plan").selectOption("Growth");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(admin.getByText(`${tenant.businessName} was updated.`)).toBeVisible();
  await expect(admin.getByTestId("message-limit-source")).toHaveText("The Growth plan's limit.");
  await expect(admin.getByText("0 of 10,000")).toBeVisible();

  // An override without a reason is refused; with one, it is the limit, marked as an override.
  await admin.getByRole("link", { name: "Edit User" }).click();
  edit = admin.getByRole("dialog", { name: "Edit User" });
  await field(edit, "Override the plan's limit (messages a month)").fill("25,000");
  await edit.getByRole("button", { name: "Save changes" }).click();
  edit = admin.getByRole("dialog", { name: "Edit User" });
  await expect(edit.getByText("Give the reason for overriding the plan's message limit")).toBeVisible();
  // What was typed is still there, with or without JavaScript.
  await expect(field(edit, "Override the plan's limit (messages a month)")).toHaveValue("25,000");
  await field(edit, "Reason for the override").fill("Black Friday campaign agreed with sales");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(admin.getByText(`${tenant.businessName} was updated.`)).toBeVisible();
  await expect(admin.getByText("0 of 25,000")).toBeVisible();
  await expect(admin.getByTestId("message-limit-source")).toContainText(
    "Limit set by an administrator (override of the Growth plan's 10,000)",
  );
  await expect(admin.getByTestId("message-limit-source")).toContainText("Reason: Black Friday campaign agreed with sales");
  await admin.context().close();
});

test("a second reconcile of the same transfer says on the page that it was already reconciled", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const { invoiceId } = await startBankTransfer(page, "3,000");

  // Two administrators (or two windows) open the reconcile form before either is sent.
  const first = await adminPage(browser, javaScriptEnabled);
  const second = await adminPage(browser, javaScriptEnabled);
  for (const tab of [first, second]) {
    await tab.goto(`/admin/billing/invoices/${invoiceId}?dialog=reconcile`);
    const dialog = tab.getByRole("dialog", { name: /^Reconcile / });
    // A statement line pays one transfer only: a reference of this test's own.
    await field(dialog, "Bank reference").fill(`NCBA-FT-${invoiceId.slice(0, 8)}`);
  }
  await first
    .getByRole("dialog", { name: /^Reconcile / })
    .getByRole("button", { name: "Mark as Reconciled" })
    .click();
  await expect(first.getByTestId("reconciled")).toContainText("Yes");

  await second
    .getByRole("dialog", { name: /^Reconcile / })
    .getByRole("button", { name: "Mark as Reconciled" })
    .click();
  await expect(second.getByRole("alert").filter({ hasText: /is already reconciled: the wallet was credited once\./ })).toBeVisible();
  await expect(second.getByTestId("reconciled")).toContainText("Yes");
  await first.context().close();
  await second.context().close();
});
