import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "./fixtures";
import { BASE_URL, fillOtpBoxes, randomIp, signInViaForm, signUpAndVerifyViaApi } from "./helpers";

// Issue 38, item 7: strangers failing to sign in from many addresses do not lock the owner out of a
// new browser; the right password there is followed by a code e-mailed to the account, on a phone
// (360 px wide), with and without JavaScript.

test("while strangers fail from many addresses, the owner signs in on a new phone with the password and an e-mailed code", async ({
  request,
  browser,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request);
  // Twelve wrong passwords, each from an address of its own: none of those addresses is refused,
  // and the account has seen more failures than one address may make.
  for (let i = 0; i < 12; i++) {
    const wrong = await request.post("/api/auth/signin", {
      headers: { "X-Forwarded-For": randomIp(), origin: BASE_URL },
      data: { email: user.email, password: `Wrong#Guess${i}` },
    });
    expect(wrong.status()).toBe(401);
  }

  const phone = await browser.newContext({
    baseURL: BASE_URL,
    javaScriptEnabled,
    viewport: { width: 360, height: 740 },
    extraHTTPHeaders: { "X-Forwarded-For": randomIp() },
  });
  try {
    const page = await phone.newPage();
    const since = new Date();
    await signInViaForm(page, user.email, user.password);
    await expect(page).toHaveURL(/\/login\/email-code$/);
    await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
    await expect(page.getByText(`We sent a 6-digit code to ${user.email}.`)).toBeVisible();
    // It fits the phone: nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    if (javaScriptEnabled) {
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    }

    // The code from the sign-in mail (its subject ends in the code), not any other.
    let code = "";
    await expect
      .poll(
        async () => {
          const mails = (await (await request.get("/sandbox/mail.json")).json()) as { to: string; subject: string; sentAt: string }[];
          const mail = mails.find(
            (m) =>
              m.to === user.email &&
              /^Your Jumbe sign-in code: \d{6}$/.test(m.subject) &&
              new Date(m.sentAt) >= new Date(since.getTime() - 1000),
          );
          code = mail?.subject.slice(-6) ?? "";
          return code;
        },
        { timeout: 30_000 },
      )
      .toMatch(/^\d{6}$/);

    const wrong = code === "000000" ? "111111" : "000000";
    await fillOtpBoxes(page, wrong);
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await expect(page).toHaveURL(/\/login\/email-code$/);
    await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();

    await fillOtpBoxes(page, code);
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  } finally {
    await phone.close();
  }
});
