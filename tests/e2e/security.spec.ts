import { test, expect } from "./fixtures";
import { BASE_URL, DEMO, field, signIn, userMenu } from "./helpers";

// Every page carries an enforced CSP with a per-request nonce; the app's own scripts carry that nonce.

function nonceOf(csp: string | undefined) {
  expect(csp, "a Content-Security-Policy header").toBeTruthy();
  const scriptSrc = csp!
    .split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith("script-src "));
  expect(scriptSrc, "a script-src directive").toBeTruthy();
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(scriptSrc!)?.[1];
  expect(nonce, "a nonce in script-src").toBeTruthy();
  return nonce!;
}

test("the landing page has a nonce-based CSP and every script carries the nonce", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  const headers = response!.headers();
  const nonce = nonceOf(headers["content-security-policy"]);
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).toContain("object-src 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("DENY");

  // Chromium hides the nonce attribute once parsed; the property keeps it.
  const scripts = await page.evaluate(() =>
    Array.from(document.querySelectorAll("script"), (s) => ({ nonce: s.nonce, src: s.src, module: s.type === "module" })),
  );
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) expect(script.nonce, `nonce of ${script.src || "an inline script"}`).toBe(nonce);
});

test("each response gets its own nonce, and the raw HTML uses it", async ({ request }) => {
  const first = await request.get("/login");
  const second = await request.get("/login");
  const nonce = nonceOf(first.headers()["content-security-policy"]);
  expect(nonceOf(second.headers()["content-security-policy"])).not.toBe(nonce);
  const html = await first.text();
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
});

test("a hydrated page's scripts and module preloads carry the response's nonce", async ({ request }) => {
  const signedIn = await request.post("/login", { form: { ...DEMO }, headers: { Origin: BASE_URL }, maxRedirects: 0 });
  expect(signedIn.status()).toBe(302);
  const page = await request.get("/dashboard");
  const nonce = nonceOf(page.headers()["content-security-policy"]);
  const html = await page.text();
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(1);
  for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
  const preloads = html.match(/<link\b[^>]*rel="modulepreload"[^>]*>/g) ?? [];
  expect(preloads.length).toBeGreaterThan(0);
  for (const tag of preloads) expect(tag).toContain(`nonce="${nonce}"`);
});

test.describe("the page script under the CSP (scripts only)", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the toggle needs scripts");

  test("the sign-in page's script runs under the CSP: the password toggle appears and works", async ({ page }) => {
    await page.goto("/login");
    const password = field(page, "Password");
    await password.fill("Siri-yangu-1");
    await expect(password).toHaveAttribute("type", "password");
    const show = page.getByRole("button", { name: "Show password" });
    await expect(show).toBeVisible();
    await show.click();
    await expect(password).toHaveAttribute("type", "text");
    await expect(password).toHaveValue("Siri-yangu-1");
    const hide = page.getByRole("button", { name: "Hide password" });
    await expect(hide).toHaveAttribute("aria-pressed", "true");
    await hide.click();
    await expect(password).toHaveAttribute("type", "password");
  });
});

test("signing out of the hydrated app lands on the sign-in page as a document without React", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "a client-side navigation needs scripts");
  await signIn(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await page.evaluate(() => "__reactRouterContext" in window), "the dashboard hydrates").toBe(true);
  await userMenu(page).locator("summary").click();
  await userMenu(page).getByRole("button", { name: "Logout" }).click();
  await page.waitForURL("**/signin");
  // The router handed the page to the browser: a document load, with the page's own script.
  await expect(page.getByRole("button", { name: "Show password" })).toBeVisible();
  expect(await page.evaluate(() => "__reactRouterContext" in window), "no React Router on the sign-in page").toBe(false);
});

test.describe("without scripts", () => {
  test.skip(({ javaScriptEnabled }) => javaScriptEnabled, "checks the no-script rendering");

  test("the password toggle, which needs scripts, is not offered", async ({ page }) => {
    await page.goto("/login");
    await expect(field(page, "Password")).toBeVisible();
    await expect(page.getByRole("button", { name: "Show password" })).toHaveCount(0);
  });
});
