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
  testInfo.setTimeout(180_000);
  server = await ownServer("dev", { entry: "scripts/dev.mjs" });
  await server.start();
});

test.afterAll(async () => {
  await server?.dispose();
});

test("npm run dev serves the product from source with Vite, hydrates, and the demo signs in", async ({ page }) => {
  test.setTimeout(120_000);
  const login = await page.request.get(`${server.base}/login`);
  expect(login.status()).toBe(200);
  // Modules come from source through Vite (a build would link /assets/...), and the relaxed CSP
  // lets the page connect to Vite's hot-update socket.
  const html = await login.text();
  expect(html).toContain('href="/app/routes/auth/login.tsx"');
  expect(html).not.toContain("/assets/");
  expect(login.headers()["content-security-policy"]).toContain("connect-src 'self' ws: wss:");

  await page.goto(`${server.base}/login`);
  // Hydrated: the password field's show/hide toggle only exists once React runs in the browser.
  await expect(page.getByRole("button", { name: "Show password" })).toBeVisible({ timeout: 60_000 });
  await signInViaForm(page, DEMO.email, DEMO.password, { goto: false });
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});
