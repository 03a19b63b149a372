import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { ADMIN, BASE_URL, awaitMailsTo, field, randomIp, signIn, signUpAndVerifyViaApi, uniqueEmail } from "./helpers";
import { codeForStep, stepAt } from "../../app/.server/domains/auth/two-factor/totp";

// Issue 74: the console's Staff tab (decision 112). The demo's administrator invites a new owner of
// the console (a person made for this test: other specs use the demo's administrator at the same
// time, so its role and language are left alone); the invitee joins by the mailed link, sets up
// two-factor sign-in before any console page, and then reads the Staff tab at 360 px in English,
// Swahili and French. With JavaScript on and off.

const staffTable = (page: Page) => page.getByRole("table", { name: "Platform staff" });

test("an owner invites staff; they join, set up two-factor first, and the Staff tab fits a phone in three languages", async ({
  page,
  browser,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole("link", { name: "Staff", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/staff$/);
  await expect(page.getByRole("heading", { level: 1, name: "Platform staff" })).toBeVisible();
  await expect(staffTable(page)).toContainText(`${ADMIN.email}`);
  await expect(staffTable(page)).toContainText("(you)");

  // Invite: a bad address is refused in words; a good one is mailed a link and listed.
  await page.getByRole("link", { name: "Invite staff" }).click();
  const dialog = page.getByRole("dialog", { name: "Invite staff" });
  await field(dialog, "E-mail address").fill("not an address");
  await dialog.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByRole("dialog", { name: "Invite staff" }).getByText("Enter a valid e-mail address.")).toBeVisible();
  const email = uniqueEmail("mkuu");
  await field(page.getByRole("dialog", { name: "Invite staff" }), "E-mail address").fill(email);
  await page.getByRole("dialog", { name: "Invite staff" }).getByLabel("Role").selectOption("owner");
  await page.getByRole("dialog", { name: "Invite staff" }).getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${email}.`)).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: email })).toContainText("Owner");

  const [mail] = await awaitMailsTo(request, email);
  expect(mail!.text).toContain("an owner of the Jumbe console");
  const link = mail!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0];

  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const staff = await context.newPage();
    await staff.goto(new URL(link).pathname);
    await expect(staff.getByText("Owner", { exact: true })).toBeVisible();
    await field(staff, "First name").fill("Zawadi");
    await field(staff, "Last name").fill("Mwangi");
    await field(staff, "New password").fill("Mkuu#Salama2026");
    await field(staff, "Confirm password").fill("Mkuu#Salama2026");
    await staff.getByRole("button", { name: "Join the team" }).click();
    // Two-factor sign-in before any console page.
    await expect(staff).toHaveURL(/\/settings\/security$/);
    await staff.goto("/admin/staff");
    await expect(staff).toHaveURL(/\/settings\/security$/);
    const card = staff.getByRole("region", { name: "Two-factor sign-in" });
    await card.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    const secret = (await card.getByTestId("totp-secret").innerText()).replace(/\s/g, "");
    await field(card, "Code from the app").fill(codeForStep(secret, stepAt(Date.now())));
    await card.getByRole("button", { name: "Turn on" }).click();
    await expect(card.getByText("Two-factor sign-in is on. Keep your recovery codes somewhere safe.")).toBeVisible();

    await staff.setViewportSize({ width: 360, height: 780 });
    const words = {
      en: { title: "Platform staff", invite: "Invite staff" },
      sw: { title: "Wafanyakazi wa jukwaa", invite: "Alika mfanyakazi" },
      fr: { title: "Équipe de la plateforme", invite: "Inviter un membre" },
    } as const;
    for (const [locale, text] of Object.entries(words)) {
      const chosen = await staff.request.post("/language", {
        form: { locale, redirectTo: "/admin/staff" },
        headers: { Origin: BASE_URL },
        maxRedirects: 0,
      });
      expect(chosen.status(), locale).toBe(302);
      await staff.goto("/admin/staff");
      await expect(staff.getByRole("heading", { level: 1, name: text.title })).toBeVisible();
      await expect(staff.getByRole("table", { name: text.title })).toContainText(email);
      expect(await staff.evaluate(() => document.scrollingElement!.scrollWidth), `${locale}: /admin/staff at 360 px`).toBeLessThanOrEqual(
        360,
      );
      await staff.getByRole("link", { name: text.invite }).click();
      await expect(staff.getByRole("dialog", { name: text.invite })).toBeVisible();
      expect(await staff.evaluate(() => document.scrollingElement!.scrollWidth), `${locale}: the invitation at 360 px`).toBeLessThanOrEqual(
        360,
      );
    }
  } finally {
    await context.close();
  }
});

test("Revenue Share is in the business menu, by Billing, and opens its page", async ({ page, request }) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const navigation = page.getByRole("complementary", { name: "Main navigation" });
  const link = navigation.getByRole("link", { name: "Revenue Share" });
  await expect(link).toHaveAttribute("href", "/revenue-share");
  await page.goto("/revenue-share");
  await expect(page.getByRole("heading", { level: 1, name: "Revenue Share" })).toBeVisible();
  await expect(navigation.getByRole("link", { name: "Revenue Share" })).toHaveAttribute("aria-current", "page");
});
