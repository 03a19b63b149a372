import { randomBytes } from "node:crypto";
import { test, expect } from "./fixtures";
import { ADMIN, signIn } from "./helpers";

// Issue 19, the System tab, with JavaScript on and off: the health cards from real probes (the
// sandboxes run inside the server), each time range as a link, an alert raised by its rule and
// resolved with a note (audited); axe in tests/e2e/admin-a11y.spec.ts. The alert's condition is real: the sandbox's control API
// stores the heartbeat of an instance that stopped beating (each test its own), and the rule opens it.

const RANGES = [
  ["1h", "Last hour", "Metrics over the last hour"],
  ["24h", "Last 24 hours", "Metrics over the last 24 hours"],
  ["7d", "Last 7 days", "Metrics over the last 7 days"],
  ["30d", "Last 30 days", "Metrics over the last 30 days"],
] as const;

test("the System tab: health cards, this instance's heartbeat, and each time range", async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password, { to: "/admin/system" });
  await expect(page.getByRole("heading", { level: 1, name: "System" })).toBeVisible();
  const service = (name: string) => page.getByTestId("service-card").filter({ has: page.getByRole("heading", { name, exact: true }) });
  for (const name of ["Database", "Job queue", "Webhook intake", "Graph API", "M-Pesa (Daraja)"]) {
    await expect(service(name).getByText("Up", { exact: true }), name).toBeVisible();
    await expect(service(name).getByText(/^\d+ ms$/), name).toBeVisible();
  }
  await expect(service("SMTP").getByText("Not configured", { exact: true })).toBeVisible();
  await expect(service("SMTP")).toContainText("SMTP_URL is not set: mail is kept in the sandbox outbox.");
  await expect(page.getByTestId("instance-card").filter({ hasText: "Up" }).first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Metrics over the last 24 hours" })).toBeVisible();

  const ranges = page.getByRole("navigation", { name: "Time range" });
  for (const [key, label, heading] of RANGES) {
    await ranges.getByRole("link", { name: label }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/system\\?range=${key}$`));
    await expect(ranges.getByRole("link", { name: label })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("heading", { name: heading })).toBeVisible();
    await expect(page.getByRole("figure", { name: "Requests answered", exact: true })).toBeVisible();
    // The six charts' figures for screen readers: one table, a column each.
    await expect(page.getByRole("table", { name: heading, exact: true })).toHaveCount(1);
  }

  // A range the page does not know: the reason, and the default range's figures.
  await page.goto("/admin/system?range=2w");
  await expect(page.getByText('There is no time range "2w": choose 1h, 24h, 7d or 30d. Showing the last 24 hours.')).toBeVisible();
  await expect(page.getByRole("heading", { name: "Metrics over the last 24 hours" })).toBeVisible();
});

test("an instance that stopped beating raises an alert, and an administrator resolves it with a note", async ({ page, request }) => {
  const hostname = `jumbe-web-${randomBytes(3).toString("hex")}`;
  const made = await request.post("/sandbox/system/control/missing-instance", { data: { hostname } });
  expect(made.status()).toBe(201);
  const { alert } = (await made.json()) as { alert: { id: string; title: string } };
  expect(alert.title).toMatch(new RegExp(`^Instance ${hostname} \\(process \\d+\\) has sent no heartbeat for 5 minutes$`));

  await signIn(page, ADMIN.email, ADMIN.password, { to: "/admin/system?range=1h" });
  const open = page.getByTestId("open-alert").filter({ hasText: hostname });
  await expect(open).toBeVisible();
  await expect(open.getByText("Error", { exact: true })).toBeVisible();
  // The bell says something is new or open: its unread count, or the alert dot once everything is read.
  await expect(page.getByTestId("admin-bell-unread").or(page.getByTestId("admin-alert-dot")).first()).toBeAttached();

  // Without a note: refused, still open.
  await open.getByLabel("Resolution note").fill("  ");
  await open.getByRole("button", { name: "Resolve" }).click();
  await expect(page.getByTestId("open-alert").filter({ hasText: hostname })).toBeVisible();

  await page
    .getByTestId("open-alert")
    .filter({ hasText: hostname })
    .getByLabel("Resolution note")
    .fill(`Retired ${hostname} after the move to Mombasa Road`);
  await page.getByTestId("open-alert").filter({ hasText: hostname }).getByRole("button", { name: "Resolve" }).click();
  await expect(page.getByTestId("open-alert").filter({ hasText: hostname })).toHaveCount(0);
  await expect(page).toHaveURL(/\/admin\/system\?range=1h/);
  const row = page.getByRole("row").filter({ hasText: hostname });
  await expect(row).toContainText(`by ${ADMIN.email}`);
  await expect(row).toContainText(`Retired ${hostname} after the move to Mombasa Road`);

  await page.goto("/admin/audit");
  await expect(page.getByRole("row").filter({ hasText: `Retired ${hostname}` })).toContainText("Resolved a system alert");
});
