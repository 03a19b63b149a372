import type { Browser, Page } from "@playwright/test";
import { expect } from "./fixtures";
import { ADMIN, BASE_URL, field, randomIp, signIn } from "./helpers";

// The billing and console browser tests' shared steps: an administrator's own browser context, and
// a bank transfer a signed-in tenant starts.

/** A page signed in as the demo administrator, in a context of its own (its own address, so its sign-in limits are its own). */
export async function adminPage(browser: Browser, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  const page = await context.newPage();
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(page).toHaveURL(/\/admin$/);
  return page;
}

/** A bank transfer the signed-in tenant starts from /billing's top-up dialog; answers its reference and pending invoice. */
export async function startBankTransfer(page: Page, amount: string) {
  await page.goto("/billing?dialog=topup");
  const dialog = page.getByRole("dialog", { name: "Top up your wallet" });
  await field(dialog, "Amount (KES)").fill(amount);
  await dialog.getByRole("radio", { name: /^Bank transfer/ }).check();
  await dialog.getByRole("button", { name: "Continue to payment" }).click();
  await expect(page.getByRole("heading", { name: "Pay by bank transfer" })).toBeVisible();
  const reference = (await page.getByTestId("bank-reference").textContent())!.trim();
  const link = page.getByRole("link", { name: /^View the pending invoice / });
  const number = ((await link.textContent()) ?? "").match(/(INV|RCT)-\d{4}-\d{6}/)![0];
  await link.click();
  await expect(page).toHaveURL(/\/billing\/invoices\/[0-9a-f-]{36}$/);
  return { number, reference, invoiceId: page.url().split("/").pop()! };
}
