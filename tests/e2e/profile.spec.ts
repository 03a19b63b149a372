import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi, type TestUser } from "./helpers";

// Spec sections 2 and 5: the profile's view and edit modes, and the change-password rules.

let user: TestUser;

test.beforeEach(async ({ page, request }) => {
  user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/profile" });
  await expect(page).toHaveURL(/\/profile$/);
});

const businessInfo = (page: Page) => page.getByRole("region", { name: "Business information" });

test("view mode shows the business and WhatsApp information read-only", async ({ page }) => {
  const values = businessInfo(page).locator("dd");
  await expect(values).toHaveText([user.businessName, user.email, "Not set"]);
  const whatsapp = page.getByRole("region", { name: "WhatsApp information" });
  await expect(whatsapp.locator("dd").first()).toHaveText(/^JMB-[A-Z0-9]{8}$/);
  await expect(whatsapp.locator("dd").nth(1)).toHaveText("Not connected");
  await expect(whatsapp.getByRole("textbox")).toHaveCount(0);
  // The account activity lists the sign-up, the verification and the sign-in.
  const activity = page.getByRole("region", { name: "Account activity" });
  await expect(activity.getByText("Account created")).toBeVisible();
  await expect(activity.getByText("Email verified")).toBeVisible();
  await expect(activity.getByText("Signed in")).toBeVisible();
});

test("Cancel leaves edit mode without saving", async ({ page }) => {
  await page.getByRole("link", { name: "Edit Profile" }).click();
  await field(page, "Business name").fill("Should Not Be Saved");
  await page.getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole("button", { name: "Save Changes" })).toHaveCount(0);
  await expect(businessInfo(page).locator("dd").first()).toHaveText(user.businessName);
});

test("an invalid phone number or an empty business name keeps the form open with the error", async ({ page }) => {
  await page.getByRole("link", { name: "Edit Profile" }).click();
  await field(page, "Phone number").fill("12");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect(field(page, "Phone number")).toHaveAccessibleDescription("Please enter a valid phone number");
  await expect(page.getByRole("button", { name: "Save Changes" })).toBeVisible();

  await field(page, "Phone number").fill("");
  await field(page, "Business name").fill("");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await expect(field(page, "Business name")).toHaveAccessibleDescription("Business name is required");
  await expect(page.getByRole("button", { name: "Save Changes" })).toBeVisible();

  await page.goto("/profile");
  await expect(businessInfo(page).locator("dd")).toHaveText([user.businessName, user.email, "Not set"]);
});

test("change password: required fields, minimum length and a new password that must differ", async ({ page }) => {
  await page.getByRole("link", { name: "Change Password" }).click();
  await expect(page).toHaveURL(/\/change-password$/);
  await expect(page.getByRole("link", { name: "Back to Profile" })).toHaveAttribute("href", "/profile");

  const current = field(page, "Current password");
  const next = field(page, "New password");
  const confirm = field(page, "Confirm new password");
  const submit = page.getByRole("button", { name: "Update Password" });

  await submit.click();
  await expect(current).toHaveAccessibleDescription("Current password is required");
  await expect(next).toHaveAccessibleDescription("New password is required");
  await expect(confirm).toHaveAccessibleDescription("Please confirm your new password");

  await current.fill(user.password);
  await next.fill("Sh0rt!");
  await confirm.fill("Sh0rt!");
  await submit.click();
  await expect(next).toHaveAccessibleDescription("Password must be at least 8 characters long");

  await current.fill(user.password);
  await next.fill(user.password);
  await confirm.fill(user.password);
  await submit.click();
  await expect(next).toHaveAccessibleDescription("New password must be different from current password");
  await expect(page.getByText("Password changed successfully")).toHaveCount(0);

  // None of these reached the account: the old password still signs in.
  await page.context().clearCookies();
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
});
