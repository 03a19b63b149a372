import type { Page } from "@playwright/test";
import { describeViolations, seriousViolationsHere } from "./axe";
import { test as base, expect } from "./fixtures";
import { ADMIN, signIn } from "./helpers";

// Issue 19: axe on every page of the admin console (each tab, a detail page of each, the audit log,
// the notifications and the search): no violation with a serious or critical impact. The console is
// sent as documents without React (decision 063): the HTML is the same with scripts on and off (its
// two page scripts add behaviour, not content), so axe runs once, in the project with scripts, and
// each check first asserts the page is such a document. Only the demo data is read: nothing here
// changes anything.

const test = base.extend<{
  /** Signs the test's page in as the administrator; the console's front page is open. */
  admin: Page;
  /** axe on the address the admin page shows now. */
  axeHere: () => Promise<void>;
  /** Opens `path` on the admin page (it answers `status`), then axe on it. */
  axeAt: (path: string, status?: number) => Promise<void>;
}>({
  admin: async ({ page }, use) => {
    await signIn(page, ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/admin$/);
    await use(page);
  },
  axeHere: async ({ admin }, use) => {
    await use(async () => {
      const url = new URL(admin.url());
      const path = `${url.pathname}${url.search}`;
      await expect(admin.getByRole("heading", { level: 1 })).toBeVisible();
      // Were the console hydrated again, its pages would differ without scripts: check them there too.
      expect(await admin.evaluate(() => "__reactRouterContext" in window), `${path} is a document without React`).toBe(false);
      const violations = await seriousViolationsHere(admin, path);
      expect.soft(violations, `axe on ${path}:\n${describeViolations(violations)}`).toEqual([]);
    });
  },
  axeAt: async ({ admin, axeHere }, use) => {
    await use(async (path, status = 200) => {
      const response = await admin.goto(path);
      expect(response?.status(), `GET ${path}`).toBe(status);
      await axeHere();
    });
  },
});

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the console's HTML is the same without scripts: axe runs once");

/** Opens the first link on the page whose address starts with `prefix` (inside `scope` when given). */
async function openFirst(page: Page, prefix: string, scope?: string) {
  const links = (scope ? page.locator(scope) : page).locator(`a[href^="${prefix}"]`);
  const to = await links.first().getAttribute("href");
  expect(to, `a link to ${prefix}…`).toBeTruthy();
  await page.goto(to!);
}

test("Overview, Users and an organisation's detail with its dialogs", async ({ admin, axeHere, axeAt }) => {
  await axeHere();
  await admin.goto("/admin/users");
  await expect(admin.getByRole("table", { name: "Organisations" })).toBeVisible();
  await axeHere();
  await axeAt("/admin/users?q=Kilimo&status=active&sort=business");
  await openFirst(admin, "/admin/users/", "main table");
  await expect(admin.getByRole("heading", { name: /^Members/ })).toBeVisible();
  await axeHere();
  const detail = new URL(admin.url()).pathname;
  for (const dialog of ["edit", "suspend"]) await axeAt(`${detail}?dialog=${dialog}`);
});

test("Billing, an invoice with the reconcile form, a dispute and a wallet", async ({ admin, axeHere, axeAt }) => {
  await admin.goto("/admin/billing");
  await expect(admin.getByRole("table", { name: "Unreconciled bank transfers" })).toBeVisible();
  await axeHere();
  await axeAt("/admin/billing?period=all&status=paid&q=Mwangaza");
  await admin.goto("/admin/billing");
  await admin
    .getByRole("table", { name: "Unreconciled bank transfers" })
    .getByRole("link", { name: /^Reconcile / })
    .first()
    .click();
  await expect(admin).toHaveURL(/\?dialog=reconcile$/);
  await axeHere();
  await axeAt(new URL(admin.url()).pathname);
  await openFirst(admin, "/admin/billing/wallets/");
  await axeHere();
  await admin.goto("/admin/billing");
  await openFirst(admin, "/admin/billing/disputes/");
  await axeHere();
});

test("WhatsApp, an account and its logs", async ({ admin, axeHere, axeAt }) => {
  await admin.goto("/admin/whatsapp");
  await expect(admin.getByRole("table", { name: "WhatsApp accounts" })).toBeVisible();
  await axeHere();
  await axeAt("/admin/whatsapp?status=token_refused");
  await admin.goto("/admin/whatsapp?q=Pwani");
  await admin.getByRole("link", { name: "Pwani Tours & Safaris" }).first().click();
  await expect(admin.getByRole("heading", { level: 1, name: "Pwani Tours & Safaris" })).toBeVisible();
  await axeHere();
  await admin.getByRole("link", { name: "View Logs" }).click();
  await expect(admin.getByRole("table", { name: "Graph API calls, newest first" })).toBeVisible();
  await axeHere();
});

test("System, in each time range", async ({ axeAt }) => {
  for (const range of ["1h", "30d"]) {
    await axeAt(`/admin/system?range=${range}`);
  }
});

test("Templates and a submission's review page", async ({ admin, axeHere }) => {
  await admin.goto("/admin/templates");
  await expect(admin.getByRole("heading", { name: "Waiting for review" })).toBeVisible();
  await axeHere();
  await openFirst(admin, "/admin/templates/", "main table");
  await axeHere();
});

test("the audit log and the notifications", async ({ axeAt }) => {
  await axeAt("/admin/audit");
  await axeAt("/admin/notifications");
});

test("the search: empty, with results, and a refused query", async ({ admin, axeHere, axeAt }) => {
  await axeAt("/admin/search");
  await admin.goto("/admin/search?q=Kilimo");
  await expect(admin.getByRole("region", { name: "Organisations" })).toBeVisible();
  await axeHere();
  await axeAt("/admin/search?q=k", 400);
  await expect(admin.getByRole("alert")).toHaveText("Type at least 2 characters to search.");
});
