import { test, expect } from "./fixtures";
import { TEXT, field, mailsTo, newUser, otpBoxes, type TestUser } from "./helpers";

// A user who never got the code must be able to ask for another from /verify-otp, with the boxes
// empty, with scripts on and off. The server enforces the 30 s window and says so.

async function signUpToVerifyPage(page: import("@playwright/test").Page, user: TestUser) {
  await page.goto("/signup");
  await field(page, "First name").fill(user.firstName);
  await field(page, "Last name").fill(user.lastName);
  await field(page, "Email").fill(user.email);
  await field(page, "Password").fill(user.password);
  await field(page, "Confirm password").fill(user.password);
  await page.getByRole("checkbox", { name: /I agree to the Terms of Service/ }).check();
  await page.getByRole("button", { name: "Create Account" }).click();
  await page.waitForURL("**/verify-otp", { timeout: 10_000 });
}

const TOO_EARLY = /^Please wait \d+ seconds before requesting a new code\.$/;

test("without JavaScript, Resend OTP is usable at once and the server answers it", async ({ page, request, javaScriptEnabled }) => {
  test.skip(javaScriptEnabled, "the no-JavaScript page");
  const user = newUser();
  await signUpToVerifyPage(page, user);

  const resend = page.getByRole("button", { name: "Resend OTP", exact: true });
  await expect(resend).toBeEnabled();
  await resend.click();

  // The request reached the server with the boxes empty: its answer is the window's message, not the
  // form's own "complete 6-digit code" check.
  await expect(page.getByRole("alert").filter({ hasText: TOO_EARLY }).first()).toBeVisible();
  await expect(page.getByText(TEXT.otpIncomplete)).toHaveCount(0);
  expect((await mailsTo(request, user.email)).length).toBe(1);
});

test("with JavaScript, Resend OTP after the countdown sends a request with the boxes empty", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "the countdown runs in the browser");
  await page.clock.install();
  const user = newUser();
  await signUpToVerifyPage(page, user);

  await expect(page.getByRole("button", { name: /^Resend OTP in \d+s$/ })).toBeDisabled();
  await page.clock.fastForward(31_000);
  const resend = page.getByRole("button", { name: "Resend OTP", exact: true });
  await expect(resend).toBeEnabled();
  for (let i = 0; i < 6; i++) await expect(otpBoxes(page).nth(i)).toHaveValue("");

  const answered = page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname.startsWith("/verify-otp"));
  await resend.click();
  const response = await answered;
  expect(response.request().postData() ?? "").toContain("intent=resend");
  // Only the browser's clock moved, so the server's window has not passed: it says so.
  await expect(page.getByRole("alert").filter({ hasText: TOO_EARLY }).first()).toBeVisible();
  await expect(page.getByText(TEXT.otpIncomplete)).toHaveCount(0);
});
