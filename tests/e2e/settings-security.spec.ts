import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "./fixtures";
import { BASE_URL, randomIp, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 15, Account Settings' Security section: where you are signed in; the other sessions end at
// once when signed out from here. Plain forms, with and without JavaScript.

test("the Security section lists this browser and another, and signs the other out at once", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request);
  const other = await browser.newContext({
    baseURL: BASE_URL,
    javaScriptEnabled,
    userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
    extraHTTPHeaders: { "X-Forwarded-For": randomIp() },
  });
  try {
    const laptop = await other.newPage();
    await signIn(laptop, user.email, user.password);
    await signIn(page, user.email, user.password);

    await page.goto("/settings");
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Security" }).click();
    await expect(page).toHaveURL(/\/settings\/security$/);
    const sessions = page.getByRole("table", { name: "Your sessions" });
    await expect(sessions.getByRole("row")).toHaveCount(3);
    await expect(sessions.getByRole("row").nth(1)).toContainText("This device");
    await expect(sessions.getByRole("row").filter({ hasText: "Firefox on Windows" })).toBeVisible();

    if (javaScriptEnabled) {
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    }

    await sessions.getByRole("button", { name: /^Sign out Firefox on Windows/ }).click();
    await expect(page.getByText("That session is signed out.")).toBeVisible();
    await expect(sessions.getByRole("row")).toHaveCount(2);
    await expect(page.getByRole("button", { name: "Sign out all other sessions" })).toHaveCount(0);

    await laptop.goto("/dashboard");
    await expect(laptop).toHaveURL(/\/login\?from=%2Fdashboard$/);
  } finally {
    await other.close();
  }
});
