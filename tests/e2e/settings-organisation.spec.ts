import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, awaitMailsTo, randomIp, signIn, signUpAndVerifyViaApi, uniqueEmail, userMenu } from "./helpers";

// Issue 15, Account Settings: the organisation's details (owners and admins), and closing it (the
// owner), with the banner every page shows while it closes. Plain forms, with and without JavaScript.

const tabs = (page: Page) => page.getByRole("navigation", { name: "Settings sections" });
const banner = (page: Page) => page.getByRole("status").filter({ hasText: "This organisation is closing." });

test("an owner edits the organisation's details: a bad KRA PIN is refused at the field, then the good one is saved", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/settings" });
  await expect(page).toHaveURL(/\/settings\/organisation$/);
  await expect(tabs(page).getByRole("link")).toHaveText([
    "Organisation",
    "Team",
    "Payments",
    "SMS",
    "Ads",
    "Data retention",
    "Notifications",
    "Security",
    "Account",
  ]);
  await expect(field(page, "Organisation name")).toHaveValue(owner.businessName);
  await expect(field(page, "Default time zone")).toHaveValue("Africa/Nairobi");

  if (javaScriptEnabled) {
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  }

  await field(page, "Organisation name").fill("Nyota Savings Sacco");
  await field(page, "KRA PIN").fill("P05123X");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Enter the KRA PIN as a letter, 9 digits and a letter, like P051234567X.")).toBeVisible();
  await expect(field(page, "KRA PIN")).toHaveAttribute("aria-invalid", "true");
  // Nothing was saved: the menu still has the old name.
  await page.goto("/settings/organisation");
  await expect(field(page, "Organisation name")).toHaveValue(owner.businessName);

  await field(page, "Organisation name").fill("Nyota Savings Sacco");
  await field(page, "KRA PIN").fill("p051234567x");
  await field(page, "Postal address for invoices").fill("P.O. Box 2145-20100, Nakuru");
  await field(page, "County").selectOption("Nakuru");
  await field(page, "Industry").selectOption("sacco");
  await field(page, "Default time zone").selectOption("Africa/Kampala");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Organisation details saved.")).toBeVisible();
  await page.goto("/settings/organisation");
  await expect(field(page, "KRA PIN")).toHaveValue("P051234567X");
  await expect(field(page, "Postal address for invoices")).toHaveValue("P.O. Box 2145-20100, Nakuru");
  await expect(field(page, "County")).toHaveValue("Nakuru");
  await expect(field(page, "Industry")).toHaveValue("sacco");
  await expect(field(page, "Default time zone")).toHaveValue("Africa/Kampala");
  await expect(userMenu(page).locator("summary")).toContainText("Nyota Savings Sacco");
});

test("the owner closes the organisation and every member's pages say so, then reopens it; an admin has no Account tab", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);

  // An admin joins by invitation, in a browser of their own.
  const adminEmail = uniqueEmail("admin");
  await page.goto("/settings/team");
  await field(page, "E-mail").fill(adminEmail);
  await field(page, "Role").selectOption("admin");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${adminEmail}.`)).toBeVisible();
  const [mail] = await awaitMailsTo(request, adminEmail);
  const link = mail!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0];
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const admin = await context.newPage();
    await admin.goto(new URL(link).pathname);
    await field(admin, "First name").fill("Achieng");
    await field(admin, "Last name").fill("Odhiambo");
    await field(admin, "New password").fill("Admin#Pass2026");
    await field(admin, "Confirm password").fill("Admin#Pass2026");
    await admin.getByRole("button", { name: "Join the team" }).click();
    await expect(admin).toHaveURL(/\/dashboard$/);
    await admin.goto("/settings");
    await expect(admin).toHaveURL(/\/settings\/organisation$/);
    await expect(tabs(admin).getByRole("link")).toHaveText([
      "Organisation",
      "Team",
      "Payments",
      "SMS",
      "Ads",
      "Data retention",
      "Notifications",
      "Security",
    ]);
    await admin.goto("/settings/account");
    await expect(admin).toHaveURL(/\/unauthorized$/);

    // The owner closes it: a wrong name is refused first.
    await page.goto("/settings");
    await tabs(page).getByRole("link", { name: "Account" }).click();
    await expect(page).toHaveURL(/\/settings\/account$/);
    await field(page, `Type ${owner.businessName} to confirm`).fill("Another name");
    await field(page, "Your password").fill(owner.password);
    await page.getByRole("button", { name: "Close the organisation" }).click();
    await expect(page.getByText("This is not the organisation's name. Type it exactly as shown.")).toBeVisible();
    await expect(banner(page)).toHaveCount(0);
    await field(page, `Type ${owner.businessName} to confirm`).fill(owner.businessName);
    await field(page, "Your password").fill(owner.password);
    await page.getByRole("button", { name: "Close the organisation" }).click();
    await expect(page.getByText(/^The organisation is closing\. Its data will be erased on /)).toBeVisible();
    await expect(banner(page)).toContainText("You can reopen it in Account Settings.");
    await expect(page.getByRole("heading", { name: "The organisation is closing" })).toBeVisible();

    // Every member sees it on every page, with the date.
    await admin.goto("/dashboard");
    await expect(banner(admin)).toContainText(/its data will be erased on \d{1,2} \w{3} \d{4} \(Nairobi time\)\. Its owner can reopen it/);
    await admin.goto("/messaging");
    await expect(banner(admin)).toBeVisible();

    // Reopened with the password: the banner goes.
    await field(page, "Your password").fill(owner.password);
    await page.getByRole("button", { name: "Reopen the organisation" }).click();
    await expect(page.getByText(/^The organisation is open again and will not be erased\./)).toBeVisible();
    await expect(banner(page)).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Close the organisation" })).toBeVisible();
    await admin.goto("/dashboard");
    await expect(admin.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(banner(admin)).toHaveCount(0);
  } finally {
    await context.close();
  }
});
