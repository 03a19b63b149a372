import { randomInt } from "node:crypto";
import { test, expect } from "./fixtures";
import { ADMIN, connectThroughDialog, expectSignupCompleteThenSetup, kenyanNumber, signIn, signUpAndVerifyViaApi } from "./helpers";

// The admin console's WhatsApp tab, with JavaScript on and off: a tenant of the test's own connects
// WhatsApp through the sandbox; the administrator finds the account, tests its connection (a real
// call to the sandbox's Graph API), marks it for reconnection and reads its logs; the tenant then
// sees the request on its WhatsApp page. The demo tenant is never changed.

test("an administrator finds a tenant's WhatsApp account, tests it, marks it for reconnection and reads its logs", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const business = `Duka la Wanjiru ${randomInt(100000, 999999)}`;
  const tenant = await signUpAndVerifyViaApi(request, { businessName: business });
  await signIn(page, tenant.email, tenant.password, { to: "/whatsapp" });
  const number = kenyanNumber();
  await connectThroughDialog(page, javaScriptEnabled, number, "Duka la Wanjiru");
  await expectSignupCompleteThenSetup(page);

  // Leave the signed-in page first: its live bell (EventSource) would reconnect without the cookie
  // and log the sign-in page it gets back as a console error.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole("navigation", { name: "Admin console" }).getByRole("link", { name: "WhatsApp", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "WhatsApp accounts" })).toBeVisible();
  // The demo's accounts across tenants, each with its status (found by the search: the other tests'
  // businesses, newer, fill the first page as the suite runs).
  const table = page.getByRole("table", { name: "WhatsApp accounts" });
  const filters = page.getByRole("search", { name: "Filter WhatsApp accounts" });
  await filters.getByLabel("Search").fill("Kilimo Bora");
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/q=Kilimo/);
  await expect(table.getByRole("row").filter({ hasText: "Kilimo Bora Agrovet" })).toContainText("Reconnect requested");

  await filters.getByLabel("Search").fill(business);
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/q=Duka/);
  const row = table.getByRole("row").filter({ hasText: business });
  await expect(row).toContainText(number.slice(-3));
  await expect(row).toContainText("Connected");
  await expect(table.getByRole("row")).toHaveCount(2);
  await row.getByRole("link", { name: business }).click();

  await expect(page.getByRole("heading", { level: 1, name: business })).toBeVisible();
  await page.getByRole("button", { name: "Test Connection" }).click();
  const test = page.getByTestId("connection-test");
  await expect(test).toContainText("Connection works");
  await expect(test).toContainText("Meta answered: WhatsApp Business Account");

  const reason = "Your business verification needs renewing with Meta";
  await page.getByLabel("Reason, shown to the organisation").fill(reason);
  await page.getByRole("button", { name: "Mark for reconnection" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Reconnection requested" })).toContainText(reason);

  await page.getByRole("link", { name: "View Logs" }).click();
  const calls = page.getByRole("table", { name: "Graph API calls, newest first" });
  await expect(calls.getByRole("row").filter({ hasText: "Administrator" }).first()).toContainText("HTTP 200");
  await expect(calls).toContainText("subscribed_apps");

  // The tenant sees the request, with the reason, on its WhatsApp page.
  // Leave the signed-in page first: its live bell (EventSource) would reconnect without the cookie
  // and log the sign-in page it gets back as a console error.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await signIn(page, tenant.email, tenant.password, { to: "/whatsapp" });
  await expect(page.getByTestId("reconnect-requested")).toContainText("Jumbe asks you to connect this account again");
  await expect(page.getByTestId("reconnect-requested")).toContainText(reason);
});

test("Test Connection on the demo's console accounts: a healthy one answers with its name, the refused token gets Meta's 190", async ({
  page,
}) => {
  // The demo seed's accounts are the Meta sandbox's console demo (sandbox/meta/console-demo.ts): same ids, same tokens.
  await signIn(page, ADMIN.email, ADMIN.password, { to: "/admin/whatsapp?q=Mama+Mboga" });
  const table = page.getByRole("table", { name: "WhatsApp accounts" });
  await table.getByRole("link", { name: "Mama Mboga Fresh Ltd" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Mama Mboga Fresh Ltd" })).toBeVisible();
  await page.getByRole("button", { name: "Test Connection" }).click();
  const test = page.getByTestId("connection-test");
  await expect(test).toContainText("Connection works");
  await expect(test).toContainText(/Meta answered: WhatsApp Business Account \d+ \(Mama Mboga Fresh Ltd\)\./);

  await page.goto("/admin/whatsapp?q=Pwani");
  await table.getByRole("link", { name: "Pwani Tours & Safaris" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Pwani Tours & Safaris" })).toBeVisible();
  await page.getByRole("button", { name: "Test Connection" }).click();
  await expect(test).toContainText("Connection failed");
  await expect(test).toContainText("The stored token is no longer accepted");
});
