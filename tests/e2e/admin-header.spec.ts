import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { ADMIN, signInViaForm, signUpAndVerifyViaApi } from "./helpers";

// Issue 19: the admin console header's search and notification bell, with JavaScript on and off.
// The search finds a tenant made here (never the demo tenant); the bell lists its sign-up, and
// "Mark all as read" (a plain POST form) clears the unread marks.

const bell = (page: Page) => page.locator("summary[aria-label^='Notifications']");
const searchBox = (page: Page) => page.getByRole("searchbox", { name: "Search the platform" }).first();

/**
 * The demo administrator's read mark is one for both projects (js and no-js run side by side): the
 * steps from "this sign-up is unread" to "Mark all as read" run one project at a time, or the other
 * project's Mark all as read could land in between. An atomic mkdir is the lock.
 */
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), "jumbe-e2e-admin-bell.lock");
  for (let i = 0; ; i += 1) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || i > 600) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

test("search from the header on the Billing tab: a tenant by name and its owner by e-mail, a too-short query", async ({
  page,
  request,
}) => {
  const tenant = await signUpAndVerifyViaApi(request);
  await signInViaForm(page, ADMIN.email, ADMIN.password, { goto: "/login?from=%2Fadmin%2Fbilling" });
  await expect(page).toHaveURL(/\/admin\/billing$/);

  await searchBox(page).fill(tenant.businessName);
  await searchBox(page).press("Enter");
  await expect(page).toHaveURL(/\/admin\/search\?q=/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Search");
  const organisations = page.getByRole("region", { name: "Organisations" });
  await expect(organisations.getByRole("link", { name: new RegExp(tenant.businessName) })).toBeVisible();

  await organisations.getByRole("link", { name: new RegExp(tenant.businessName) }).click();
  await expect(page).toHaveURL(/\/admin\/users\/[0-9a-f-]{36}$/);
  const organisationPage = new URL(page.url()).pathname;

  // The owner by e-mail, from the search page's own box: the same organisation's page.
  await page.goto("/admin/search");
  await expect(page.getByText(/Type 2 to 100 characters/)).toBeVisible();
  await page.getByRole("searchbox", { name: "Search the platform" }).last().fill(tenant.email);
  await page.getByRole("searchbox", { name: "Search the platform" }).last().press("Enter");
  const users = page.getByRole("region", { name: "Users" });
  await expect(users.getByRole("link", { name: new RegExp(`${tenant.firstName} ${tenant.lastName}`) })).toBeVisible();
  await users.getByRole("link", { name: new RegExp(`${tenant.firstName} ${tenant.lastName}`) }).click();
  await expect(page).toHaveURL(new RegExp(`${organisationPage}$`));

  // Too short: the reason, nothing searched.
  await page.goto("/admin/system");
  await searchBox(page).fill("k");
  await searchBox(page).press("Enter");
  await expect(page.getByRole("alert")).toHaveText("Type at least 2 characters to search.");
});

test("the bell: a new sign-up is unread in the menu and on Notifications, Mark all as read clears it", async ({ page, request }) => {
  await signInViaForm(page, ADMIN.email, ADMIN.password, { goto: "/login?from=%2Fadmin%2Fwhatsapp" });
  await expect(page).toHaveURL(/\/admin\/whatsapp$/);

  await oneAtATime(async () => {
    const tenant = await signUpAndVerifyViaApi(request);
    const signUp = `New sign-up: ${tenant.businessName}`;

    // The menu: the count, the live system status, the newest events.
    await page.reload();
    await expect(bell(page)).toHaveAttribute("aria-label", /^Notifications, (\d|9\+) unread$/);
    await expect(page.getByTestId("admin-bell-unread")).toBeVisible();
    await bell(page).click();
    const menu = page.getByRole("list", { name: "Latest platform events" });
    await expect(page.getByRole("group", { name: "System alerts" })).toBeVisible();
    await expect(menu.getByRole("link", { name: new RegExp(signUp) })).toBeVisible();
    await expect(menu.getByRole("link", { name: new RegExp(signUp) })).toContainText("Unread");

    // Every event on its page, this one unread and linking to the organisation.
    await page.getByRole("link", { name: "View all notifications" }).click();
    await expect(page).toHaveURL(/\/admin\/notifications$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Notifications");
    const entry = page.getByRole("list", { name: "Platform events" }).getByRole("link", { name: new RegExp(signUp) });
    await expect(entry).toHaveAttribute("data-unread", "true");
    await expect(entry).toHaveAttribute("href", /^\/admin\/users\/[0-9a-f-]{36}$/);

    await page.getByRole("button", { name: "Mark all as read" }).click();
    await expect(page).toHaveURL(/\/admin\/notifications$/);
    await expect(entry).not.toHaveAttribute("data-unread", /.*/);
    await expect(entry).not.toContainText("Unread");

    // Opening the event: the organisation's page.
    await entry.click();
    await expect(page).toHaveURL(/\/admin\/users\/[0-9a-f-]{36}$/);
  });
});

// Decision 063: the console's pages are documents without React. Its two page scripts still close a
// menu on Escape (the focus back on its button) and on a press beside it.
test("the console is sent without React, and its menus close on Escape and on a press beside them", async ({ page, javaScriptEnabled }) => {
  await signInViaForm(page, ADMIN.email, ADMIN.password, { goto: "/login?from=%2Fadmin%2Faudit" });
  await expect(page).toHaveURL(/\/admin\/audit$/);
  const scripts = await page.locator("script[src]").evaluateAll((all) => all.map((s) => new URL((s as HTMLScriptElement).src).pathname));
  expect(scripts.sort()).toEqual([
    expect.stringMatching(/^\/assets\/forms-[\w-]+\.js$/),
    expect.stringMatching(/^\/assets\/menus-[\w-]+\.js$/),
  ]);
  expect(await page.locator("script:not([src])").count()).toBe(0);
  expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);

  await bell(page).click();
  const events = page.getByRole("list", { name: "Latest platform events" });
  await expect(events).toBeVisible();
  if (!javaScriptEnabled) {
    // A native <details>: its button closes it.
    await bell(page).click();
    await expect(events).toBeHidden();
    return;
  }
  await page.keyboard.press("Escape");
  await expect(events).toBeHidden();
  await expect(bell(page)).toBeFocused();
  await bell(page).click();
  await expect(events).toBeVisible();
  await page.getByRole("heading", { level: 1 }).click();
  await expect(events).toBeHidden();
});
