import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { adminPage } from "./billing-helpers";
import { BASE_URL, field, newUser, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 46's pages with JavaScript on and off: an administrator enrols a new organisation as a
// partner, changes its share with a reason, assigns it a client, reads the demo partners'
// transactions and processes a settlement (a bank one marked paid with JavaScript, a failed M-Pesa
// one retried without); the demo partner's owner reads its own programme; a member applies and an
// administrator approves; every tab fits 360 px. Demo partners: app/.server/demo/seed-revenue-share.ts.

/** The form in `scope` whose submit button is named `button` (the inner locator starts at the page, as Playwright asks). */
const formWith = (page: Page, scope: Page | Locator, button: string) =>
  scope.locator("form").filter({ has: page.getByRole("button", { name: button }) });

async function fits360(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${page.url()} is ${width}px wide`).toBeLessThanOrEqual(360);
}

test("an administrator enrols a partner, changes its share with a reason, assigns a client and processes a settlement", async ({
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const owner = await signUpAndVerifyViaApi(request);
  const client = await signUpAndVerifyViaApi(request);
  const name = `${owner.businessName} Partners`;
  const admin = await adminPage(browser, javaScriptEnabled);

  await admin.goto("/revenue-share/partners");
  await admin.getByRole("link", { name: "Enrol Partner" }).click();
  let dialog = admin.getByRole("dialog", { name: "Enrol Partner" });
  await expect(dialog).toBeVisible();
  await field(dialog, "Organisation").fill(owner.email);
  await field(dialog, "Partner name").fill(name);
  await dialog.getByLabel("Category").selectOption("CRM");
  await field(dialog, "M-Pesa number").fill("0712 345 678");
  await field(dialog, "KRA PIN").fill("A12345");
  await dialog.getByRole("button", { name: "Enrol partner" }).click();
  // Refused at its field, the form kept.
  dialog = admin.getByRole("dialog", { name: "Enrol Partner" });
  await expect(dialog.getByText("A KRA PIN is a letter, nine digits and a letter, such as A123456789Z.")).toBeVisible();
  await field(dialog, "KRA PIN").fill("A123456789Z");
  await dialog.getByRole("button", { name: "Enrol partner" }).click();
  await expect(admin.getByText(new RegExp(`${name} is a partner now, referral code [A-Z0-9]+\\.`))).toBeVisible();

  // The partner's dialog: Edit Partner with a new share and its reason.
  await admin.goto(`/revenue-share/partners?q=${encodeURIComponent(name)}`);
  await admin.getByRole("link", { name, exact: true }).click();
  dialog = admin.getByRole("dialog", { name });
  await expect(dialog.getByTestId("partner-share")).toHaveText("15%");
  await dialog.getByRole("link", { name: "Edit Partner" }).click();
  const edit = admin.getByRole("dialog", { name: "Edit Partner" });
  await edit.getByLabel("Share", { exact: true }).selectOption("20");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(admin.getByRole("dialog", { name: "Edit Partner" }).getByText("Give a reason for this share.")).toBeVisible();
  await field(admin.getByRole("dialog", { name: "Edit Partner" }), "Reason").fill("Reached 20 clients in Nairobi");
  await admin.getByRole("dialog", { name: "Edit Partner" }).getByRole("button", { name: "Save changes" }).click();
  await expect(admin.getByText(`${name} saved. The new share applies to payments from now on.`)).toBeVisible();
  dialog = admin.getByRole("dialog", { name });
  await expect(dialog.getByTestId("partner-share")).toHaveText("20%");
  await expect(dialog.getByTestId("share-history")).toContainText("Reached 20 clients in Nairobi");

  // Assign a client with a reason.
  const assign = formWith(admin, dialog, "Assign client");
  await field(assign, "Client organisation").fill(client.email);
  await field(assign, "Reason").fill("Signed at the agency's workshop");
  await assign.getByRole("button", { name: "Assign client" }).click();
  await expect(admin.getByText(`${client.businessName} is a client of ${name} from now on.`)).toBeVisible();
  await expect(admin.getByRole("dialog", { name }).getByRole("list", { name: "Clients" })).toContainText(client.businessName);

  // Transactions: the demo partner's clients' payments, filtered.
  await admin.goto("/revenue-share/transactions");
  await admin.getByLabel("Partner").selectOption({ label: "Savannah Digital Agency" });
  await admin.getByRole("button", { name: "Filter" }).click();
  const rows = admin.getByRole("table", { name: "Transactions" }).getByRole("row");
  await expect(rows.nth(1)).toContainText("Savannah Digital Agency");
  await expect(rows.filter({ hasText: "Coastline Beach Hotels Ltd" }).first()).toContainText("KES");

  // Process Settlement: with JavaScript, the demo's bank settlement marked paid; without, the failed M-Pesa one retried.
  await admin.goto("/revenue-share/settlements");
  if (javaScriptEnabled) {
    await admin
      .getByRole("link", { name: /^Process the settlement of Nairobi CRM Works/ })
      .first()
      .click();
    const settle = admin.getByRole("dialog", { name: "Process Settlement" });
    await settle.getByRole("button", { name: "Mark paid by bank" }).click();
    await expect(
      admin
        .getByRole("dialog", { name: "Process Settlement" })
        .getByText(/reference/i)
        .first(),
    ).toBeVisible();
    await field(admin.getByRole("dialog", { name: "Process Settlement" }), "Bank reference").fill("FT26331NCRM");
    await admin.getByRole("dialog", { name: "Process Settlement" }).getByRole("button", { name: "Mark paid by bank" }).click();
    await expect(admin.getByText("The settlement is marked paid with the bank's reference.")).toBeVisible();
    await expect(admin.getByRole("table", { name: "Settlements" }).getByRole("row").filter({ hasText: "FT26331NCRM" })).toContainText(
      "Paid",
    );
  } else {
    await admin
      .getByRole("link", { name: /^Process the settlement of Pwani E-commerce Solutions/ })
      .first()
      .click();
    const settle = admin.getByRole("dialog", { name: "Process Settlement" });
    await expect(
      settle.getByText(/Last attempt failed: M-Pesa did not pay \(result 2001\): The initiator information is invalid\./),
    ).toBeVisible();
    await settle.getByRole("button", { name: "Try the M-Pesa payout again" }).click();
    await expect(admin.getByText("The M-Pesa payout is on its way.")).toBeVisible();
  }
  await admin.context().close();
});

test("a partner's owner reads its own programme; a member applies and an administrator approves", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "partner@savannahdigital.co.ke", "JumbePartner#2026");
  await page.goto("/revenue-share");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Revenue Share");
  await expect(page.getByTestId("own-share")).toHaveText("15%");
  await expect(page.getByTestId("referral-link")).toHaveText(/\/signup\?ref=SAVANNAH2026$/);
  await expect(page.getByTestId("referral-qr").locator("svg")).toBeVisible();
  await expect(page.getByRole("table", { name: "Clients" })).toContainText("Coastline Beach Hotels Ltd");
  await expect(page.getByRole("table", { name: "Settlements" }).getByRole("link", { name: "Statement PDF" }).first()).toHaveAttribute(
    "href",
    /^\/revenue-share\/settlements\/[0-9a-f-]{36}\/statement$/,
  );
  // Read-only: no administrator's tabs or forms.
  await expect(page.getByRole("link", { name: "Edit Partner" })).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Revenue Share sections" })).toHaveCount(0);
  await page.setViewportSize({ width: 360, height: 800 });
  await fits360(page);
  await page.context().clearCookies();

  const member = await signUpAndVerifyViaApi(request);
  await signIn(page, member.email, member.password);
  await page.goto("/revenue-share");
  await expect(page.getByRole("heading", { name: "Apply to become a partner" })).toBeVisible();
  await fits360(page);
  const form = formWith(page, page, "Apply");
  await form.getByLabel("Category").selectOption("E-commerce");
  await field(form, "M-Pesa number").fill("+254 722 123 456");
  await field(form, "KRA PIN").fill("P051234567Q");
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText(/Application sent\. An administrator will review it/)).toBeVisible();
  await expect(page.getByText("Application received")).toBeVisible();

  const admin = await adminPage(browser, javaScriptEnabled);
  await admin.goto(`/revenue-share/partners?status=pending&q=${encodeURIComponent(member.businessName)}`);
  await admin.getByRole("link", { name: member.businessName, exact: true }).click();
  await admin.getByRole("dialog", { name: member.businessName }).getByRole("button", { name: "Approve" }).click();
  await expect(admin.getByText(`${member.businessName} is an active partner now.`)).toBeVisible();

  await page.reload();
  await expect(page.getByTestId("referral-link")).toBeVisible();

  // Every tab at 360 px.
  await admin.setViewportSize({ width: 360, height: 800 });
  for (const path of ["/revenue-share", "/revenue-share/partners", "/revenue-share/transactions", "/revenue-share/settlements"]) {
    await admin.goto(path);
    await expect(admin.getByRole("heading", { level: 1 })).toHaveText("Revenue Share");
    await fits360(admin);
  }
  await admin.context().close();
});

test("a sign-up with the partner owner's phone waits for review: the partner sees it under review, an administrator approves it", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  // Savannah Digital Agency's owner signs up another business through their own link, with their own phone.
  const user = newUser();
  const signup = await request.post("/api/auth/signup", {
    headers: { "Content-Type": "application/json", Origin: BASE_URL },
    data: { ...user, phoneNumber: "+254 722 510 010", agreedToTerms: true, ref: "SAVANNAH2026" },
  });
  expect(signup.status(), await signup.text()).toBe(201);

  await signIn(page, "partner@savannahdigital.co.ke", "JumbePartner#2026");
  await page.goto("/revenue-share");
  const underReview = page.getByRole("list", { name: "Referrals under review" });
  await expect(underReview.getByRole("listitem").first()).toContainText("under review");
  // Which organisation it is stays the platform's business until it is approved.
  await expect(page.getByText(user.businessName)).toHaveCount(0);
  await expect(page.getByRole("table", { name: "Clients" })).not.toContainText(user.businessName);
  await page.setViewportSize({ width: 360, height: 800 });
  await fits360(page);

  const admin = await adminPage(browser, javaScriptEnabled);
  await admin.setViewportSize({ width: 360, height: 800 });
  await admin.goto("/revenue-share");
  const review = admin.getByTestId("referral-review").filter({ hasText: user.businessName });
  await expect(review).toContainText("Savannah Digital Agency");
  await expect(review).toContainText("Phone +254722510010");
  await fits360(admin);
  // Rejecting needs a reason; approving does not.
  await formWith(admin, review, "Reject referral").getByRole("button", { name: "Reject referral" }).click();
  await expect(admin.getByText("Give a reason.").first()).toBeVisible();
  await formWith(admin, admin.getByTestId("referral-review").filter({ hasText: user.businessName }), "Approve referral")
    .getByRole("button", { name: "Approve referral" })
    .click();
  await expect(
    admin.getByText(`Referral approved: ${user.businessName} is a client of Savannah Digital Agency from now on.`),
  ).toBeVisible();
  await expect(admin.getByTestId("referral-review").filter({ hasText: user.businessName })).toHaveCount(0);
  await admin.context().close();

  await page.reload();
  await expect(page.getByRole("table", { name: "Clients" })).toContainText(user.businessName);
});
