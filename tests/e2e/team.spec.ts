import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, awaitMailsTo, randomIp, signIn, signUpAndVerifyViaApi, uniqueEmail, userMenu } from "./helpers";

// Issue 15: the organisation's team at /settings/team, and joining by an invitation's link. Every
// step is a form that works with and without JavaScript.

const members = (page: Page) => page.getByRole("table", { name: "Members" });
const invitations = (page: Page) => page.getByRole("table", { name: "Open invitations" });

test("an owner invites an agent, who joins by the mailed link and meets the role's limits; the owner changes the role and removes them", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);

  // The user menu's Account Settings opens at the organisation; the team is the next tab.
  if (javaScriptEnabled) {
    await userMenu(page).locator("summary").click();
    await userMenu(page).getByRole("link", { name: "Account Settings" }).click();
  } else await page.goto("/settings");
  await expect(page).toHaveURL(/\/settings\/organisation$/);
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Team" }).click();
  await expect(page).toHaveURL(/\/settings\/team$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Account Settings");
  await expect(members(page).getByRole("row")).toHaveCount(2);
  await expect(members(page)).toContainText(`${owner.firstName} ${owner.lastName} (you)`);
  await expect(members(page)).toContainText("Owner");

  // A bad address is refused in words, and nothing is sent.
  await field(page, "E-mail").fill("not-an-address");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText("Email is invalid")).toBeVisible();
  await expect(invitations(page)).toContainText("No open invitations.");

  const agentEmail = uniqueEmail("agent");
  await field(page, "E-mail").fill(agentEmail);
  await field(page, "Role").selectOption("agent");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${agentEmail}.`)).toBeVisible();
  await expect(invitations(page)).toContainText(agentEmail);
  await expect(invitations(page)).toContainText("Agent");

  const [mail] = await awaitMailsTo(request, agentEmail);
  expect(mail?.subject).toBe(`${owner.firstName} ${owner.lastName} invited you to ${owner.businessName} on Jumbe`);
  const link = mail!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)?.[0];
  expect(link).toBeTruthy();

  // The invited person, in a browser of their own.
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const agent = await context.newPage();
    await agent.goto(new URL(link!).pathname);
    await expect(agent.getByRole("heading", { level: 1 })).toHaveText(`Join ${owner.businessName}`);
    await expect(agent.getByText(agentEmail)).toBeVisible();
    await field(agent, "First name").fill("Brian");
    await field(agent, "Last name").fill("Otieno");
    await field(agent, "New password").fill("Agent#Pass2026");
    await field(agent, "Confirm password").fill("Agent#Pass2026");
    await agent.getByRole("button", { name: "Join the team" }).click();
    await expect(agent).toHaveURL(/\/dashboard$/);
    await expect(agent.getByText("Welcome to the team! You are signed in.")).toBeVisible();

    // An agent sees the team but changes nothing, and the Developers page is not theirs.
    await agent.goto("/settings/team");
    await expect(members(agent)).toContainText("Brian Otieno (you)");
    await expect(agent.getByRole("button", { name: "Send invitation" })).toHaveCount(0);
    await expect(agent.getByRole("button", { name: "Change" })).toHaveCount(0);
    await agent.goto("/developers");
    await expect(agent).toHaveURL(/\/unauthorized$/);

    // The link worked once.
    await agent.goto(new URL(link!).pathname);
    await expect(agent.getByRole("heading", { level: 1 })).toHaveText("This invitation has been used");

    // The owner sees them, makes them a viewer, then removes them: they are signed out at once.
    await page.goto("/settings/team");
    await expect(invitations(page)).toContainText("No open invitations.");
    const row = members(page).getByRole("row").filter({ hasText: "Brian Otieno" });
    await row.getByLabel("Role of Brian Otieno").selectOption("viewer");
    await row.getByRole("button", { name: "Change" }).click();
    await expect(page.getByText("Role changed to Viewer.")).toBeVisible();
    await expect(members(page).getByLabel("Role of Brian Otieno")).toHaveValue("viewer");

    await members(page).getByRole("link", { name: "Remove Brian Otieno" }).click();
    await expect(page.getByRole("alertdialog", { name: "Remove Brian Otieno?" })).toBeVisible();
    await page.getByRole("button", { name: "Remove member" }).click();
    await expect(page.getByText("Member removed. They have been signed out everywhere.")).toBeVisible();
    await expect(members(page)).not.toContainText("Brian Otieno");

    await agent.goto("/dashboard");
    await expect(agent).toHaveURL(/\/login\?from=%2Fdashboard$/);
  } finally {
    await context.close();
  }
});

/** axe's serious and critical findings on the page as it is (axe runs as a script: with scripts on only). */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a withdrawn invitation's link says so, and resending mails a new link", async ({ page, request, javaScriptEnabled }) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/settings/team" });
  const email = uniqueEmail("viewer");
  await field(page, "E-mail").fill(email);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(invitations(page)).toContainText(email);
  const first = (await awaitMailsTo(request, email))[0]!.text.match(/\/invitations\/[\w-]+/)![0];

  await invitations(page)
    .getByRole("button", { name: `Resend to ${email}` })
    .click();
  await expect(page.getByText("Invitation sent again, with a new link valid for 7 days.")).toBeVisible();
  const mails = await awaitMailsTo(request, email, 2);
  expect(mails).toHaveLength(2);
  const second = mails[0]!.text.match(/\/invitations\/[\w-]+/)![0];
  expect(second).not.toBe(first);
  const stale = await request.get(first);
  expect(stale.status()).toBe(404);

  if (javaScriptEnabled) {
    expect(await seriousViolations(page), "/settings/team").toEqual([]);
    const joinPage = await page.context().newPage();
    await joinPage.goto(second);
    await expect(joinPage.getByRole("button", { name: "Join the team" })).toBeVisible();
    expect(await seriousViolations(joinPage), "the invitation's page").toEqual([]);
    await joinPage.close();
  }

  await invitations(page)
    .getByRole("button", { name: `Withdraw ${email}` })
    .click();
  await expect(page.getByText("Invitation withdrawn. Its link no longer works.")).toBeVisible();
  await page.goto(second);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This invitation was withdrawn");
});

test("the owner hands the ownership over with their password and becomes an admin", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/settings/team" });
  const email = uniqueEmail("admin");
  await field(page, "E-mail").fill(email);
  await field(page, "Role").selectOption("admin");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(invitations(page)).toContainText(email);
  const path = (await awaitMailsTo(request, email))[0]!.text.match(/\/invitations\/[\w-]+/)![0];
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const joining = await context.newPage();
    await joining.goto(path);
    await field(joining, "First name").fill("Halima");
    await field(joining, "Last name").fill("Abdi");
    await field(joining, "New password").fill("Admin#Pass2026");
    await field(joining, "Confirm password").fill("Admin#Pass2026");
    await joining.getByRole("button", { name: "Join the team" }).click();
    await expect(joining).toHaveURL(/\/dashboard$/);
  } finally {
    await context.close();
  }

  await page.goto("/settings/team");
  await members(page).getByRole("link", { name: "Make Halima Abdi the owner" }).click();
  const panel = page.getByRole("alertdialog", { name: "Make Halima Abdi the owner?" });
  await field(panel, "Your password").fill("not my password");
  await panel.getByRole("button", { name: "Hand over the ownership" }).click();
  await expect(page.getByText("The password is not correct.")).toBeVisible();
  await expect(members(page).getByRole("row").filter({ hasText: owner.email })).toContainText("Owner");

  await field(page.getByRole("alertdialog", { name: "Make Halima Abdi the owner?" }), "Your password").fill(owner.password);
  await page.getByRole("button", { name: "Hand over the ownership" }).click();
  await expect(page.getByText("You have handed over the ownership. You are now an admin.")).toBeVisible();
  await expect(members(page).getByRole("row").filter({ hasText: "Halima Abdi" })).toContainText("Owner");
  // Now an admin: the role of the owner cannot be changed, and nobody can be made owner by them.
  await expect(members(page).getByRole("link", { name: /the owner$/ })).toHaveCount(0);
});
