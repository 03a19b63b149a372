import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { signIn, signUpAndVerifyViaApi } from "./helpers";

// Spec section 2: the six-step Get Started tutorial; every control is a link, so it works with scripts off.

test.beforeEach(async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/get-started" });
  await expect(page).toHaveURL(/\/get-started$/);
});

const tutorial = (page: Page) => page.getByRole("navigation", { name: "Tutorial steps" });
const progress = (page: Page) => page.getByRole("progressbar", { name: "Tutorial progress" });

test("Next, the step dots and the final Get Started button", async ({ page }) => {
  await expect(page.getByText("Step 1 of 6", { exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Welcome to Jumbe", level: 1 })).toBeVisible();
  await expect(progress(page)).toHaveAttribute("aria-valuenow", "1");
  await expect(tutorial(page).getByRole("link", { name: "Previous" })).toHaveCount(0);

  await tutorial(page).getByRole("link", { name: "Next" }).click();
  await expect(page.getByText("Step 2 of 6", { exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Connect WhatsApp", level: 1 })).toBeVisible();
  await expect(progress(page)).toHaveAttribute("aria-valuenow", "2");
  await expect(tutorial(page).getByRole("link", { name: "Step 2: Connect WhatsApp" })).toHaveAttribute("aria-current", "step");

  await tutorial(page).getByRole("link", { name: "Previous" }).click();
  await expect(page.getByText("Step 1 of 6", { exact: true })).toBeVisible();

  await tutorial(page)
    .getByRole("link", { name: /^Step 6: / })
    .click();
  await expect(page.getByText("Step 6 of 6", { exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Track results", level: 1 })).toBeVisible();
  await expect(tutorial(page).getByRole("link", { name: "Next" })).toHaveCount(0);
  const getStarted = tutorial(page).getByRole("link", { name: "Get Started", exact: true });
  await expect(getStarted).toHaveAttribute("href", "/dashboard");
  await getStarted.click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
});

test("Skip Tutorial goes to the dashboard", async ({ page }) => {
  await tutorial(page).getByRole("link", { name: "Next" }).click();
  await expect(page.getByText("Step 2 of 6", { exact: true })).toBeVisible();
  await page.getByRole("link", { name: "Skip Tutorial" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
});

test("an out-of-range step starts at step 1", async ({ page }) => {
  await page.goto("/get-started?step=9");
  await expect(page.getByText("Step 1 of 6", { exact: true })).toBeVisible();
});
