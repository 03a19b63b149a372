import { test, expect } from "./fixtures";
import { TEXT, field, fillOtpBoxes, latestCode, otpBoxes, signInViaForm, signUpAndVerifyViaApi, userMenu } from "./helpers";

// The 'Forgot password?' link of the sign-in screen (spec section 2) and the reset it leads to.

test("forgot password: a mailed code sets a new password", async ({ page, request, javaScriptEnabled }) => {
  const user = await signUpAndVerifyViaApi(request);
  const newPassword = `Upya#${Date.now().toString(36)}Z7`;

  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  // The sign-in page has an Email field too: fill the new page's, once it is the one shown.
  await expect(page.getByRole("heading", { name: "Forgot password?", level: 1 })).toBeVisible();
  await field(page, "Email").fill(user.email);
  await page.getByRole("button", { name: "Send Reset Code" }).click();

  await expect(page).toHaveURL(/\/reset-password$/);
  await expect(
    page.getByRole("status").filter({ hasText: "If an account exists for that email, we have sent a 6-digit reset code to it." }),
  ).toBeVisible();
  await expect(page.getByText(user.email, { exact: true })).toBeVisible();

  const code = await latestCode(request, user.email, { kind: "reset" });
  if (javaScriptEnabled) {
    await otpBoxes(page).first().click();
    await page.keyboard.type(code);
    for (let i = 0; i < 6; i++) await expect(otpBoxes(page).nth(i)).toHaveValue(code[i]!);
  } else {
    await fillOtpBoxes(page, code);
  }
  await field(page, "New password").fill(newPassword);
  await field(page, "Confirm new password").fill(newPassword);
  await page.getByRole("button", { name: "Reset Password" }).click();

  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("status").filter({ hasText: TEXT.resetDone })).toBeVisible();

  // The old password is gone; the new one signs in.
  await field(page, "Email").fill(user.email);
  await field(page, "Password").fill(user.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText(TEXT.invalidCredentials);
  await signInViaForm(page, user.email, newPassword, { goto: false });
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(userMenu(page).locator("summary")).toContainText(user.businessName);
});

test("reset page: a wrong code is refused and the password stays", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await page.goto("/forgot-password");
  await field(page, "Email").fill(user.email);
  await page.getByRole("button", { name: "Send Reset Code" }).click();
  await expect(page).toHaveURL(/\/reset-password$/);
  const code = await latestCode(request, user.email, { kind: "reset" });
  const wrong = code === "000000" ? "111111" : "000000";

  await fillOtpBoxes(page, wrong);
  await field(page, "New password").fill("Another#Pass99");
  await field(page, "Confirm new password").fill("Another#Pass99");
  await page.getByRole("button", { name: "Reset Password" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("Invalid verification code. Please try again.");
  await expect(page).toHaveURL(/\/reset-password$/);

  await signInViaForm(page, user.email, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("the reset page without a requested code goes back to forgot password", async ({ page }) => {
  await page.goto("/reset-password");
  await expect(page).toHaveURL(/\/forgot-password$/);
  await expect(page.getByRole("heading", { name: "Forgot password?" })).toBeVisible();
});
