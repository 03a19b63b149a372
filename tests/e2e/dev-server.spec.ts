import path from "node:path";
import { test, expect } from "./fixtures";
import { DEMO, signInViaForm } from "./helpers";
import { ownServer, type OwnServer } from "./own-server";

// `npm run dev` (scripts/dev.mjs, decision 014): Vite's dev server inside Jumbe's own Express server,
// with the sandboxes and the demo data. The fixture fails the test on any CSP violation or console
// error, so the development CSP must let Vite's client and its style injection through.

let server: OwnServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({}, testInfo) => {
  test.skip(testInfo.project.name !== "js", "hot reload needs JavaScript: run once");
  testInfo.setTimeout(240_000);
  server = await ownServer("dev", { entry: "scripts/dev.mjs" });
  // An empty pre-bundling cache, as on a fresh clone: the first page load must not find
  // dependencies the start-up scan missed (Vite would answer 504 and the page never hydrates).
  await server.start({ VITE_CACHE_DIR: path.join(server.dataDir, "vite-cache") });
});

test.afterAll(async () => {
  await server?.dispose();
});

test("npm run dev serves the product from source with Vite, hydrates, and the demo signs in", async ({ page }) => {
  test.setTimeout(240_000);
  const login = await page.request.get(`${server.base}/login`);
  expect(login.status()).toBe(200);
  // Modules come from source through Vite (a build would link /assets/...), and the relaxed CSP
  // lets the page connect to Vite's hot-update socket.
  const html = await login.text();
  expect(html).toContain('src="/app/assets/forms.js"');
  expect(html).not.toMatch(/"\/assets\//);
  expect(login.headers()["content-security-policy"]).toContain("connect-src 'self' ws: wss:");

  await page.goto(`${server.base}/login`);
  // The sign-in page's own script (no React there, decision 060) runs from source: the toggle shows.
  await expect(page.getByRole("button", { name: "Show password" })).toBeVisible({ timeout: 60_000 });
  // The first signed-in page is compiled from source as it is asked for: on a loaded machine that
  // took more than the usual 30 s (CI, 2026-11-30).
  await signInViaForm(page, DEMO.email, DEMO.password, { goto: false, timeout: 90_000 });
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // The signed-in pages hydrate, their route modules from source too.
  const dashboard = await page.request.get(`${server.base}/dashboard`);
  expect(await dashboard.text()).toContain('href="/app/routes/app/dashboard.tsx"');
  // The icon sprite comes from source too, and the icons draw from it.
  const icon = page.getByRole("complementary", { name: "Main navigation" }).getByRole("navigation").locator("svg > use").first();
  expect(await icon.getAttribute("href")).toMatch(/^\/app\/assets\/icons\.svg#[\w-]+$/);
  await expect.poll(() => icon.evaluate((el) => (el as SVGUseElement).getBBox().width), { timeout: 30_000 }).toBeGreaterThan(10);

  // A page in Swahili hydrates in Swahili from source too (the browser's locale runtime reads
  // <html lang>): React keeps the server's words, and the fixture fails on a hydration error.
  await page.context().addCookies([{ name: "lng", value: "sw", url: server.base }]);
  await page.goto(`${server.base}/dashboard`);
  expect(await page.locator("html").getAttribute("lang")).toBe("sw");
  await expect(page.getByLabel("Lugha ya kuonyesha")).toHaveCount(1);
  await page.waitForLoadState("networkidle");
  await expect(page.getByLabel("Lugha ya kuonyesha")).toHaveCount(1);
  // Vite's start-up scan read every module (a module it cannot follow makes it give up, and the
  // pages then find their dependencies late: a 504 and no hydration, on some runs only).
  expect(server.stderr()).not.toContain("Failed to run dependency scan");
});

test("the UI kit's gallery shows every component, and its URL dialog is a modal with JavaScript", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${server.base}/dev/ui`);
  await expect(page.getByRole("heading", { level: 1, name: "UI kit" })).toBeVisible();
  for (const name of ["Buttons", "Fields", "Tabs, table and pager", "Badges and progress", "Charts", "Dialog"])
    await expect(page.getByRole("heading", { name })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Messages this month" })).toHaveAttribute("aria-valuenow", "720");
  // Sorting is a link: the URL carries it, and the header says so.
  await page.getByRole("link", { name: "County" }).click();
  await expect(page).toHaveURL(/sort=county&dir=asc/);
  await expect(page.getByRole("columnheader", { name: "County" })).toHaveAttribute("aria-sort", "ascending");
  // The dialog opens from its link and, with scripts running, is modal: Escape closes it and the URL follows.
  await page.getByRole("link", { name: "Archive campaign" }).click();
  const dialog = page.getByRole("dialog", { name: "Archive this campaign?" });
  await expect(dialog).toBeVisible();
  // Modal once React has hydrated the page (from source, on a busy machine that can take a while).
  await expect.poll(() => dialog.evaluate((el) => el.matches(":modal")), { timeout: 60_000 }).toBe(true);
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page).not.toHaveURL(/dialog=/);
});
