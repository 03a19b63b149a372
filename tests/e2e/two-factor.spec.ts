import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "./fixtures";
import { BASE_URL, field, randomIp, signInViaForm, signUpAndVerifyViaApi } from "./helpers";
import { codeForStep, stepAt } from "../../app/.server/domains/auth/two-factor/totp";

// Issue 15: two-factor sign-in, set up and used as a member would, with and without JavaScript.
// The test plays the authenticator app: it reads the key the page shows and computes the codes.

/** The app's code for the next 30-second step: accepted now (one step of skew) and newer than the one the set-up used. */
const nextCode = (secret: string) => codeForStep(secret, stepAt(Date.now()) + 1);

test("a member turns on two-factor sign-in, signs in with the app's code, then with a recovery code", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request);
  await signInViaForm(page, user.email, user.password);
  await page.goto("/settings/security");
  const card = page.getByRole("region", { name: "Two-factor sign-in" });
  await expect(card.getByText("Off", { exact: true })).toBeVisible();
  await card.getByRole("button", { name: "Set up two-factor sign-in" }).click();

  await expect(card.getByRole("img", { name: "QR code to scan with your authenticator app" })).toBeVisible();
  const secret = (await card.getByTestId("totp-secret").innerText()).replace(/\s/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  if (javaScriptEnabled) {
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  }

  // A wrong code is refused at the field; the right one turns it on and shows the ten codes once.
  await field(card, "Code from the app").fill("000000");
  await card.getByRole("button", { name: "Turn on" }).click();
  await expect(card.getByText("That code is not right. Check your authenticator app and try again.")).toBeVisible();
  await field(card, "Code from the app").fill(codeForStep(secret, stepAt(Date.now())));
  await card.getByRole("button", { name: "Turn on" }).click();
  await expect(card.getByText("Two-factor sign-in is on. Keep your recovery codes somewhere safe.")).toBeVisible();
  const codes = (await card.getByTestId("recovery-codes").getByRole("listitem").allInnerTexts()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  // The codes copy in one press with scripts (app/assets/forms.js on a hydrated page); without, no button.
  const copyCodes = card.getByRole("button", { name: "Copy the codes" });
  if (javaScriptEnabled) {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await copyCodes.click();
    await expect(card.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));
  } else await expect(copyCodes).toHaveCount(0);
  // Shown once: opening the page again shows how many are left, not the codes.
  await page.goto("/settings/security");
  await expect(page.getByTestId("recovery-codes")).toHaveCount(0);
  await expect(page.getByText("10 of 10 recovery codes left.", { exact: false })).toBeVisible();

  // Another browser: the password alone is not enough.
  const other = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const phone = await other.newPage();
    await signInViaForm(phone, user.email, user.password);
    await expect(phone).toHaveURL(/\/login\/two-factor$/);
    await expect(phone.getByRole("heading", { name: "Two-factor sign-in" })).toBeVisible();
    await phone.goto("/dashboard");
    await expect(phone).toHaveURL(/\/login\?from=%2Fdashboard$/);

    await signInViaForm(phone, user.email, user.password);
    await field(phone, "Authentication code").fill("123456");
    await phone.getByRole("button", { name: "Verify and sign in" }).click();
    await expect(phone.getByText("That code is not right. Check your authenticator app and try again.")).toBeVisible();
    await field(phone, "Authentication code").fill(nextCode(secret));
    await phone.getByRole("button", { name: "Verify and sign in" }).click();
    await expect(phone).toHaveURL(/\/dashboard$/);
    await expect(phone.getByText("Login successful!")).toBeVisible();
  } finally {
    await other.close();
  }

  // A third browser, phone lost: a recovery code, once.
  const lost = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const laptop = await lost.newPage();
    await signInViaForm(laptop, user.email, user.password);
    await field(laptop, "Authentication code").fill(codes[0]!);
    await laptop.getByRole("button", { name: "Verify and sign in" }).click();
    await expect(laptop).toHaveURL(/\/dashboard$/);
    await expect(laptop.getByText(/You signed in with a recovery code\. 9 codes are left/)).toBeVisible();
  } finally {
    await lost.close();
  }
});
