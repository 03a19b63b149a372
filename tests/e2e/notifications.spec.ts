import type { Browser, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, awaitMailsTo, randomIp, signIn, signUpAndVerifyViaApi, uniqueEmail } from "./helpers";

// Issue 15's notifications: the bell with its unread dot, /notifications, and who gets e-mails.
// Real events make them (a member joining the team); every step works with and without JavaScript,
// and with it a new one arrives without a reload.

const bell = (page: Page) => page.locator("details").filter({ has: page.locator('summary[aria-label^="Notifications"]') });
const dot = (page: Page) => page.getByTestId("unread-dot");

/** Invites `email` as an agent from the team page and has them join in a browser of their own. */
async function inviteAndJoin(
  page: Page,
  browser: Browser,
  request: Parameters<typeof awaitMailsTo>[0],
  javaScriptEnabled: boolean,
  first: string,
  /** A page to wait on while the member joins (the team page is a document without React: no live bell). */
  { waitOn }: { waitOn?: string } = {},
) {
  const email = uniqueEmail(first.toLowerCase());
  await page.goto("/settings/team");
  await field(page, "E-mail").fill(email);
  await field(page, "Role").selectOption("agent");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${email}.`)).toBeVisible();
  if (waitOn) await page.goto(waitOn);
  const [mail] = await awaitMailsTo(request, email);
  const link = mail!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0];
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const member = await context.newPage();
    await member.goto(new URL(link).pathname);
    await field(member, "First name").fill(first);
    await field(member, "Last name").fill("Otieno");
    await field(member, "New password").fill("Agent#Pass2026");
    await field(member, "Confirm password").fill("Agent#Pass2026");
    await member.getByRole("button", { name: "Join the team" }).click();
    await expect(member).toHaveURL(/\/dashboard$/);
  } finally {
    await context.close();
  }
}

test("a member reads a notification from the bell and the dot goes away; with JavaScript it arrives without a reload", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(dot(page)).toHaveCount(0);
  await bell(page).locator("summary").click();
  await expect(bell(page)).toContainText("Nothing new.");
  await bell(page).locator("summary").click();

  await inviteAndJoin(page, browser, request, javaScriptEnabled, "Brian", { waitOn: "/dashboard" });
  // With JavaScript the open page hears of it (server-sent events); without, the next page shows it.
  if (!javaScriptEnabled) await page.reload();
  await expect(dot(page)).toBeVisible();
  await expect(bell(page).locator("summary")).toHaveAttribute("aria-label", "Notifications (1 unread)");

  await bell(page).locator("summary").click();
  if (!javaScriptEnabled) {
    // The page carries the count only (its live stream brings the latest five): the bell says how
    // many and links to the list, where the notification leads on just the same.
    await expect(bell(page)).toContainText("1 unread notification.");
    await bell(page).getByRole("link", { name: "See all notifications" }).click();
    await expect(page).toHaveURL(/\/notifications$/);
  }
  const place = javaScriptEnabled ? bell(page) : page.getByRole("list", { name: "Notifications" });
  const item = place.getByRole("link", { name: /Brian Otieno joined the team/ });
  await expect(item).toBeVisible();
  // The bell lists titles; what a notification says in full is on /notifications.
  if (javaScriptEnabled) await expect(bell(page)).not.toContainText("accepted the invitation and joined as Agent.");
  await item.click();
  // Following it marks it read and leads to what it is about.
  await expect(page).toHaveURL(/\/settings\/team$/);
  await expect(dot(page)).toHaveCount(0);
  await expect(bell(page).locator("summary")).toHaveAttribute("aria-label", "Notifications");
  await page.goto("/notifications");
  await expect(page.getByRole("main")).toContainText("accepted the invitation and joined as Agent.");
});

test("/notifications lists them and marks all as read; the bell marks all read and comes back", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  await inviteAndJoin(page, browser, request, javaScriptEnabled, "Amina");
  await inviteAndJoin(page, browser, request, javaScriptEnabled, "Daudi");

  // The bell's "See all notifications".
  await page.goto("/settings/team");
  await bell(page).locator("summary").click();
  await bell(page).getByRole("link", { name: "See all notifications" }).click();
  await expect(page).toHaveURL(/\/notifications$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Notifications");
  const list = page.getByRole("list", { name: "Notifications" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(list.getByRole("listitem").first()).toContainText("Daudi Otieno joined the team");
  await expect(page.getByText("2 unread.")).toBeVisible();

  // One marked read by its button, then the rest at once.
  await page.getByRole("button", { name: "Mark read: Daudi Otieno joined the team" }).click();
  await expect(page.getByText("1 unread.")).toBeVisible();
  await expect(page.getByRole("button", { name: /^Mark read:/ })).toHaveCount(1);
  await page.getByRole("button", { name: "Mark all as read" }).click();
  await expect(page.getByText("1 notification marked as read.")).toBeVisible();
  await expect(page.getByText("You are up to date.")).toBeVisible();
  await expect(list.getByTestId("notification-unread")).toHaveCount(0);
  await expect(dot(page)).toHaveCount(0);

  // The bell's own "Mark all as read" returns to the page it was on.
  await inviteAndJoin(page, browser, request, javaScriptEnabled, "Wanjiku");
  await page.goto("/messaging");
  await expect(dot(page)).toBeVisible();
  await bell(page).locator("summary").click();
  await bell(page).getByRole("button", { name: "Mark all as read" }).click();
  await expect(page).toHaveURL(/\/messaging$/);
  await expect(dot(page)).toHaveCount(0);
});

test("an owner chooses who gets e-mails for each event, and the choice is kept", async ({ page, request }) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/settings/team" });
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Notifications" }).click();
  await expect(page).toHaveURL(/\/settings\/notifications$/);
  const adminsFinished = page.getByRole("checkbox", { name: "Campaign finished: e-mail admins" });
  const agentsFinished = page.getByRole("checkbox", { name: "Campaign finished: e-mail agents" });
  await expect(adminsFinished).toBeChecked();
  await expect(agentsFinished).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Low balance: e-mail owners" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Overdue invoices: e-mail admins" })).toBeChecked();
  await adminsFinished.uncheck();
  await agentsFinished.check();
  await page.getByRole("button", { name: "Save notification settings" }).click();
  await expect(page.getByText("Notification settings saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "Campaign finished: e-mail admins" })).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Campaign finished: e-mail agents" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Template decisions: e-mail owners" })).toBeChecked();
  // The change is in the activity log.
  await page.goto("/activity");
  await expect(page.getByText("Notification settings changed").first()).toBeVisible();
});
