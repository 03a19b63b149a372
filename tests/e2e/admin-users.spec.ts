import { test, expect } from "./fixtures";
import { ADMIN, field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 19: an administrator walks the Overview and the Users tab, opens an organisation made for
// this test (never the demo tenant: other specs use it at the same time), suspends it and
// reactivates it, with JavaScript on and off. The admin's session is fresh, so no step-up field
// (tests/integration/admin-users.test.ts covers a stale one).

test("Overview and Users: figures, search, a tenant's detail, suspend and reactivate", async ({ page, request }) => {
  const tenant = await signUpAndVerifyViaApi(request);
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(page).toHaveURL(/\/admin$/);

  // Overview: the KPI cards, the revenue metrics with their definitions, the charts' tables, activity and alerts.
  await expect(page.getByRole("heading", { level: 1, name: "Admin Console" })).toBeVisible();
  for (const label of ["Organisations", "Active in 30 days", "Messages this month", "Revenue this month"])
    await expect(page.getByText(label, { exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Revenue metrics" })).toBeVisible();
  await expect(page.getByText(/Monthly fees \(before VAT\)/)).toBeVisible();
  await expect(page.getByRole("table", { name: "User growth: new organisations per month" })).toHaveCount(1);
  await expect(page.getByRole("table", { name: /Message volume/ })).toHaveCount(1);
  await expect(page.getByRole("heading", { name: "Recent activity" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "System alerts" })).toBeVisible();
  const exported = await request.get("/admin/export.csv");
  expect(exported.status(), "the export is the administrator's alone").toBe(404);

  // Users: the header's search box filters the tab; search for the new tenant by its business name.
  await page.getByRole("link", { name: "Users", exact: true }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Organisations" })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search users" }).fill(tenant.businessName);
  await page.getByRole("searchbox", { name: "Search users" }).press("Enter");
  await expect(page).toHaveURL(/[?&]q=/);
  await expect(page.getByText("1 organisation matching")).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: tenant.businessName });
  await expect(row).toContainText(tenant.email);
  await expect(row).toContainText("Active");
  await expect(row.getByRole("progressbar")).toBeVisible();
  // Sorting is a link; the search stays.
  await page.getByRole("link", { name: "Business" }).click();
  await expect(page).toHaveURL(/sort=business/);
  await expect(page.getByRole("row").filter({ hasText: tenant.businessName })).toHaveCount(1);

  // The detail view.
  await page.getByRole("link", { name: tenant.businessName }).click();
  await expect(page.getByRole("heading", { level: 1, name: tenant.businessName })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Members (1)" })).toBeVisible();
  await expect(page.getByText(tenant.email).first()).toBeVisible();

  // Suspend User, with a reason; no step-up field (the session is fresh).
  await page.getByRole("link", { name: "Suspend User" }).click();
  const suspend = page.getByRole("dialog", { name: "Suspend User" });
  await expect(suspend).toBeVisible();
  await expect(field(suspend, "Your password or authenticator code")).toHaveCount(0);
  await suspend.getByRole("button", { name: "Suspend", exact: true }).click();
  await expect(page.getByRole("dialog", { name: "Suspend User" }).getByText("Give the reason.")).toBeVisible();
  await field(page.getByRole("dialog", { name: "Suspend User" }), "Reason").fill("Reported for spam by many customers");
  await page.getByRole("dialog", { name: "Suspend User" }).getByRole("button", { name: "Suspend", exact: true }).click();
  await expect(page.getByText("Reason: Reported for spam by many customers").first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Reactivate" })).toBeVisible();
  await expect(page.getByText("Suspended the organisation")).toBeVisible();

  // The tenant cannot sign in while suspended.
  const signedIn = await request.post("/api/auth/signin", {
    headers: { "Content-Type": "application/json", Origin: new URL(page.url()).origin },
    data: { email: tenant.email, password: tenant.password },
  });
  expect(signedIn.status()).toBeGreaterThanOrEqual(400);

  // Reactivate, with a reason.
  await page.getByRole("link", { name: "Reactivate" }).click();
  const reactivate = page.getByRole("dialog", { name: "Reactivate" });
  await field(reactivate, "Reason").fill("Spam reports reviewed: a misunderstanding");
  await reactivate.getByRole("button", { name: "Reactivate", exact: true }).click();
  await expect(page.getByRole("link", { name: "Suspend User" })).toBeVisible();
  await expect(page.getByText("Reactivated the organisation")).toBeVisible();
  await expect(page.getByRole("link", { name: "Open in the audit log" })).toHaveAttribute("href", /\/admin\/audit\?org=/);
});
