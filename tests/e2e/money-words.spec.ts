import { test, expect } from "./fixtures";
import { BASE_URL, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 74: Swahili pages wrote shillings "Ksh" (sw-KE's symbol) where every other place says KES, and
// an invoice's line said its unit ("top-up") in English. Both languages, with JavaScript on and off.

const LANGUAGES = [
  { lng: "sw", balance: /^KES\s0\.00$/, unit: "uongezaji" },
  { lng: "fr", balance: /^0,00\sKES$/, unit: "recharge" },
] as const;

for (const { lng, balance, unit } of LANGUAGES) {
  test(`in ${lng}, amounts say KES and an invoice line's unit is in ${lng}`, async ({ page, request }) => {
    const user = await signUpAndVerifyViaApi(request);
    await signIn(page, user.email, user.password, { to: "/billing" });
    // The user menu's language switcher: kept on the account (which wins over the cookie).
    const chosen = await page.request.post("/language", {
      form: { locale: lng, redirectTo: "/billing" },
      headers: { Origin: BASE_URL },
      maxRedirects: 0,
    });
    expect(chosen.status()).toBe(302);
    await page.goto("/billing");
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
    await expect(page.getByTestId("billing-balance")).toHaveText(balance);
    await expect(page.locator("main")).not.toContainText("Ksh");

    // A bank transfer's pending document: its line's unit in the page's language, never "top-up".
    const started = await page.request.post("/api/billing/topups", {
      headers: { "Content-Type": "application/json", Origin: BASE_URL },
      data: { amount: 1000, method: "bank" },
    });
    expect(started.status(), await started.text()).toBe(201);
    const { invoiceId } = (await started.json()) as { invoiceId: string };
    await page.goto(`/billing/invoices/${invoiceId}`);
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
    const line = page.locator("tbody tr").first();
    await expect(line.locator("td").nth(3)).toHaveText(unit);
    await expect(page.locator("main")).not.toContainText("top-up");
    await expect(page.locator("main")).not.toContainText("Ksh");
  });
}
