import { test, expect } from "./fixtures";
import { ADMIN, BASE_URL, DEMO, TEXT, field, signInViaForm, signUpAndVerifyViaApi, userMenu } from "./helpers";

// Spec section 6 and the redirects of section 2.

test("an admin lands on the admin console and is turned away from /dashboard", async ({ page }) => {
  await signInViaForm(page, ADMIN.email, ADMIN.password);
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("heading", { name: "Admin Console", level: 1 })).toBeVisible();
  // Admins get no side navigation and no top bar.
  await expect(page.getByRole("complementary", { name: "Main navigation" })).toHaveCount(0);
  await expect(userMenu(page)).toHaveCount(0);
  await expect(page.locator('summary[aria-label="Profile menu"]')).toBeVisible();

  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/unauthorized$/);
  await expect(page.getByRole("heading", { name: "Access denied" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your home page" })).toHaveAttribute("href", "/admin");
});

test("the admin console does not exist for an individual: 404 at /admin and every page under it", async ({ page }) => {
  await signInViaForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();

  for (const path of ["/admin", "/admin/users", "/admin/profile"]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toHaveCount(0);
    // The product's own Not Found page, not the crash screen (issue 39).
    await expect(page.getByRole("heading", { name: "This page does not exist.", level: 1 })).toBeVisible();
    await expect(page.getByText("Something went wrong.")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Go to the home page" })).toHaveAttribute("href", "/");
  }
});

test("a signed-out visitor is sent to sign in, and comes back to the page asked for", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await page.goto("/profile");
  await expect(page).toHaveURL("/login?from=%2Fprofile");
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();

  await signInViaForm(page, user.email, user.password, { goto: false });
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole("heading", { name: "Profile", level: 1 })).toBeVisible();
  await expect(page.getByRole("region", { name: "Business information" }).locator("dd").first()).toHaveText(user.businessName);
});

test("a protocol-relative `from` is not followed", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signInViaForm(page, user.email, user.password, { goto: "/login?from=//evil.example" });
  await expect(page).toHaveURL(`${BASE_URL}/dashboard`);
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
});

test("a signed-in user opening /login goes home", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signInViaForm(page, user.email, user.password);
  await page.goto("/login");
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/signup");
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("unknown paths redirect to the landing page", async ({ page }) => {
  await page.goto("/no-such-page/at/all");
  await expect(page).toHaveURL(`${BASE_URL}/`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // Sign-in links point at the application host from configuration (APP_URL).
  await expect(page.getByRole("link", { name: "Sign in" }).first()).toHaveAttribute("href", `${BASE_URL}/login`);
});

test("`from` survives a failed attempt", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await page.goto("/get-started?step=3");
  await expect(page).toHaveURL("/login?from=%2Fget-started%3Fstep%3D3");
  await field(page, "Email").fill(user.email);
  await field(page, "Password").fill("Wrong-password-1");
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText(TEXT.invalidCredentials);

  await signInViaForm(page, user.email, user.password, { goto: false });
  await expect(page).toHaveURL(/\/get-started\?step=3$/);
  await expect(page.getByText("Step 3 of 6", { exact: true })).toBeVisible();
});
