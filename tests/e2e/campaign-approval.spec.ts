import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, awaitMailsTo, randomIp, uniqueEmail } from "./helpers";
import { fillCampaign, number, readyBusiness } from "./campaign-helpers";

// Issue 15's maker-checker (decision 033), with JavaScript on and off: the owner turns broadcast
// approval on; an admin who joined by invitation sends a quick broadcast above the threshold, which
// waits; the owner approves it and it sends through the Meta sandbox. Another is declined, with the
// reason required and shown.

const status = (page: Page) => page.getByTestId("campaign-status");

test("broadcast approval: the owner turns it on, an admin's broadcast waits, the owner approves it and it sends", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  const { user: owner, template } = await readyBusiness(page, request);

  // The owner turns it on: a bad number is refused at the field, then 2 is saved.
  await page.goto("/settings/team");
  await expect(page.getByTestId("approval-state")).toContainText("Broadcast approval is off");
  await page.getByLabel("Require approval for large campaigns and broadcasts").check();
  await field(page, "When they reach more than (recipients)").fill("2.5");
  await page.getByRole("button", { name: "Save approval setting" }).click();
  await expect(field(page, "When they reach more than (recipients)")).toHaveAccessibleDescription(
    /Give a whole number from 0 to 1,000,000\./,
  );
  await field(page, "When they reach more than (recipients)").fill("2");
  await page.getByRole("button", { name: "Save approval setting" }).click();
  await expect(page.getByTestId("approval-state")).toHaveText(/Broadcast approval is on for more than 2 recipients/);

  // An admin joins through the mailed invitation.
  const email = uniqueEmail("admin");
  await field(page, "E-mail").fill(email);
  await field(page, "Role").selectOption("admin");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${email}.`)).toBeVisible();
  const link = (await awaitMailsTo(request, email))[0]!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0];
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const admin = await context.newPage();
    await admin.goto(new URL(link).pathname);
    await field(admin, "First name").fill("Grace");
    await field(admin, "Last name").fill("Wanjiru");
    await field(admin, "New password").fill("Admin#Pass2026");
    await field(admin, "Confirm password").fill("Admin#Pass2026");
    await admin.getByRole("button", { name: "Join the team" }).click();
    await expect(admin).toHaveURL(/\/dashboard$/);

    // The admin sees the setting but cannot change it.
    await admin.goto("/settings/team");
    await expect(admin.getByTestId("approval-state")).toContainText("on for more than 2 recipients");
    await expect(admin.getByRole("button", { name: "Save approval setting" })).toHaveCount(0);

    // A quick broadcast to three: the review says it will wait; confirmed, it waits and nothing is sent.
    const sendBroadcast = async () => {
      await admin.goto("/messaging/broadcasts/new");
      await fillCampaign(admin, javaScriptEnabled, { template, phones: [number(), number(), number()] });
      await expect(admin.getByRole("note")).toContainText("more than 2 people, your organisation's approval threshold");
      await admin.getByRole("button", { name: "Confirm and send to 3" }).click();
      await expect(admin).toHaveURL(/\/messaging\/campaigns\/[0-9a-f-]{36}$/);
      await expect(status(admin)).toHaveText("Awaiting approval");
      return new URL(admin.url()).pathname;
    };
    const first = await sendBroadcast();
    const approval = admin.getByRole("region", { name: "Approval" });
    await expect(approval).toContainText("Asked for by Grace Wanjiru");
    await expect(approval).toContainText("You made this broadcast: another owner or admin must approve it.");
    await expect(admin.getByRole("button", { name: "Approve broadcast" })).toHaveCount(0);
    await expect(admin.getByTestId("count-sent")).toHaveText("0");

    // The owner finds it by the list's filter and approves it: it sends.
    await page.goto("/messaging?status=awaiting_approval");
    const row = page.getByRole("row").filter({ hasText: `Quick broadcast: ${template}` });
    await expect(row).toContainText("Awaiting approval");
    await page.goto(first);
    await expect(page.getByRole("region", { name: "Approval" })).toContainText("Approving sends it now.");
    await page.getByRole("button", { name: "Approve broadcast" }).click();
    await expect(status(page)).toHaveText("Completed", { timeout: 45_000 });
    await expect(page.getByTestId("count-sent")).toHaveText("3", { timeout: 30_000 });
    await expect(page.getByRole("region", { name: "Approval" })).toContainText(`Approved by ${owner.firstName} ${owner.lastName}`);

    // A second one is declined: the reason is required, then shown to its author.
    const second = await sendBroadcast();
    await page.goto(second);
    await page.getByRole("button", { name: "Decline broadcast" }).click();
    await expect(field(page, "Reason for declining")).toHaveAccessibleDescription(/Say why you decline it: the author reads it\./);
    await expect(status(page)).toHaveText("Awaiting approval");
    await field(page, "Reason for declining").fill("Wrong day: the water is off on Wednesday in Naivasha.");
    await page.getByRole("button", { name: "Decline broadcast" }).click();
    await expect(status(page)).toHaveText("Declined");
    await admin.goto(second);
    await expect(status(admin)).toHaveText("Declined");
    await expect(admin.getByRole("region", { name: "Approval" })).toContainText(`Declined by ${owner.firstName} ${owner.lastName}`);
    await expect(admin.getByRole("region", { name: "Approval" })).toContainText("Wrong day: the water is off on Wednesday in Naivasha.");
    await expect(admin.getByTestId("count-sent")).toHaveText("0");
  } finally {
    await context.close();
  }
});
