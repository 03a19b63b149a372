import { test, expect } from "./fixtures";
import {
  BASE_URL,
  TEXT,
  field,
  fillOtpBoxes,
  latestCode,
  mailsTo,
  newUser,
  otpBoxes,
  signInViaForm,
  signUpAndVerifyViaApi,
  signUpViaForm,
  userMenu,
} from "./helpers";

// Spec sections 2, 4, 5 and 8: the whole life of a new account, in the browser, with scripts on and off.
test("sign up, verify by code, sign in, edit the profile, change the password, sign out and back in", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.slow();
  const user = newUser();

  await test.step("sign up", async () => {
    await page.goto("/signup");
    await field(page, "First name").fill(user.firstName);
    await field(page, "Last name").fill(user.lastName);
    await field(page, "Email").fill(user.email);
    await field(page, "Password").fill(user.password);
    await field(page, "Confirm password").fill(user.password);
    await page.getByRole("checkbox", { name: /I agree to the Terms of Service/ }).check();
    await page.getByRole("button", { name: "Create Account" }).click();

    // The success message shows on the sign-up page first, then the verify page follows after 1.8 s.
    await expect(page.getByRole("status").filter({ hasText: TEXT.signupSuccess }).first()).toBeVisible();
    await expect(page).toHaveURL(/\/signup$/);
    await page.waitForURL("**/verify-otp", { timeout: 30_000 });
  });

  await test.step("verify the e-mail with the mailed code", async () => {
    await expect(page.getByRole("heading", { name: "Verify Email" })).toBeVisible();
    await expect(page.getByText(user.email)).toBeVisible();
    // The 30 s resend window has just opened: with scripts the button counts down; without, it stays
    // usable and the server enforces the window (tests/e2e/resend-code.spec.ts).
    if (javaScriptEnabled) await expect(page.getByRole("button", { name: /^Resend OTP in \d+s$/ })).toBeDisabled();
    else await expect(page.getByRole("button", { name: "Resend OTP", exact: true })).toBeEnabled();

    const code = await latestCode(request, user.email, { kind: "verification" });
    const boxes = otpBoxes(page);
    if (javaScriptEnabled) {
      // Typing advances from box to box.
      await boxes.first().click();
      await page.keyboard.type(code[0]!);
      await expect(boxes.nth(1)).toBeFocused();
      await page.keyboard.type(code.slice(1));
      await expect(boxes.nth(5)).toBeFocused();
    } else {
      await fillOtpBoxes(page, code);
    }
    for (let i = 0; i < 6; i++) await expect(boxes.nth(i)).toHaveValue(code[i]!);

    await page.getByRole("button", { name: "Verify Account" }).click();
    await expect(page.getByRole("status").filter({ hasText: TEXT.verifySuccess }).first()).toBeVisible();
    await page.waitForURL("**/login", { timeout: 30_000 });
  });

  await test.step("sign in and see the Overview", async () => {
    await signInViaForm(page, user.email, user.password, { goto: false });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("status").filter({ hasText: TEXT.loginSuccess })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
    await expect(page.getByTestId("stat-messages-sent")).toHaveText("0");
    await expect(page.getByTestId("stat-active-contacts")).toHaveText("0");
    await expect(page.getByTestId("stat-templates")).toHaveText("0 of 0");
    await expect(page.getByTestId("stat-account-status")).toHaveText("Setup");
    // Without a business name the organisation is named after the person.
    await expect(userMenu(page).locator("summary")).toContainText(`${user.firstName} ${user.lastName}`);
  });

  const businessName = `Mama Mboga ${Date.now().toString(36)}`;
  await test.step("edit the profile", async () => {
    await page.goto("/profile");
    await page.getByRole("link", { name: "Edit Profile" }).click();
    await expect(page).toHaveURL(/\/profile\?edit=1$/);
    await field(page, "Business name").fill(businessName);
    await field(page, "Phone number").fill("0712 345 678");
    await page.getByRole("button", { name: "Save Changes" }).click();

    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole("status").filter({ hasText: "Profile updated successfully" })).toBeVisible();
    const info = page.getByRole("region", { name: "Business information" });
    await expect(info.locator("dd").nth(0)).toHaveText(businessName);
    await expect(info.locator("dd").nth(1)).toHaveText(user.email);
    await expect(info.locator("dd").nth(2)).toHaveText("+254712345678");
    await expect(page.getByRole("button", { name: "Save Changes" })).toHaveCount(0);

    // The user menu shows the new business name, and so does a fresh load (it was stored).
    await userMenu(page).locator("summary").click();
    await expect(userMenu(page)).toHaveAttribute("open", "");
    await expect(userMenu(page).locator("summary")).toContainText(businessName);
    await page.reload();
    await expect(userMenu(page).locator("summary")).toContainText(businessName);
    await expect(page.getByRole("region", { name: "Business information" }).locator("dd").nth(0)).toHaveText(businessName);
  });

  const newPassword = `Mpya#${Date.now().toString(36)}X9`;
  await test.step("change the password", async () => {
    await userMenu(page).locator("summary").click();
    await userMenu(page).getByRole("link", { name: "Change Password" }).click();
    await expect(page).toHaveURL(/\/change-password$/);
    await expect(page.getByRole("heading", { name: "Change Password" })).toBeVisible();

    const current = field(page, "Current password");
    const next = field(page, "New password");
    const confirm = field(page, "Confirm new password");
    const submit = page.getByRole("button", { name: "Update Password" });

    await current.fill("Not-the-password-1");
    await next.fill(newPassword);
    await confirm.fill(newPassword);
    await submit.click();
    // Shown under the field (tied to it) and as an error toast.
    await expect(current).toHaveAccessibleDescription(TEXT.currentWrong);
    await expect(current).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByRole("alert").filter({ hasText: TEXT.currentWrong })).toBeVisible();

    await current.fill(user.password);
    await next.fill(newPassword);
    await confirm.fill(`${newPassword}-typo`);
    await submit.click();
    await expect(confirm).toHaveAccessibleDescription(TEXT.passwordsMismatch);
    await expect(confirm).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText(TEXT.passwordsMismatch, { exact: true })).toBeVisible();

    await current.fill(user.password);
    await next.fill(newPassword);
    await confirm.fill(newPassword);
    await submit.click();
    await expect(page.getByRole("status").filter({ hasText: TEXT.passwordChanged })).toBeVisible();
    await expect(page).toHaveURL(/\/change-password$/);
    await expect(page.getByText(TEXT.currentWrong)).toHaveCount(0);
    // The account owner is told by e-mail.
    expect((await mailsTo(request, user.email)).map((m) => m.subject)).toContain("Your Jumbe password was changed");
  });

  await test.step("sign out from the user menu", async () => {
    await userMenu(page).locator("summary").click();
    await userMenu(page).getByRole("button", { name: "Logout" }).click();
    await page.waitForURL("**/signin");
    await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();

    await page.goto("/dashboard");
    await expect(page).toHaveURL("/login?from=%2Fdashboard");
  });

  await test.step("the old password no longer works, the new one does", async () => {
    await field(page, "Email").fill(user.email);
    await field(page, "Password").fill(user.password);
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(page.locator("form").getByText(TEXT.invalidCredentials)).toBeVisible();

    await signInViaForm(page, user.email, newPassword, { goto: false });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
    await expect(userMenu(page).locator("summary")).toContainText(businessName);
  });
});

test.describe("code boxes (scripts only)", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "auto-advance, paste and Backspace need scripts");

  test("pasting the whole code fills all six boxes and verifies", async ({ page, request, context }) => {
    const user = newUser();
    await signUpViaForm(page, user, { businessName: true });

    const code = await latestCode(request, user.email, { kind: "verification" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.evaluate((text) => navigator.clipboard.writeText(text), `Code: ${code.slice(0, 3)} ${code.slice(3)}`);
    const boxes = otpBoxes(page);
    await boxes.first().click();
    await page.keyboard.press("ControlOrMeta+V");
    // Non-digits are stripped and every box gets one digit.
    for (let i = 0; i < 6; i++) await expect(boxes.nth(i)).toHaveValue(code[i]!);
    await expect(boxes.nth(5)).toBeFocused();

    await page.getByRole("button", { name: "Verify Account" }).click();
    await expect(page.getByRole("status").filter({ hasText: TEXT.verifySuccess }).first()).toBeVisible();
    await page.waitForURL("**/login", { timeout: 30_000 });
    await signInViaForm(page, user.email, user.password, { goto: false });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(userMenu(page).locator("summary")).toContainText(user.businessName);
  });

  test("non-digits are ignored and Backspace on an empty box goes back", async ({ page }) => {
    await page.goto("/verify-otp");
    const boxes = otpBoxes(page);
    await boxes.first().click();
    await page.keyboard.type("a");
    await expect(boxes.first()).toHaveValue("");
    await expect(boxes.first()).toBeFocused();
    await page.keyboard.type("12");
    await expect(boxes.nth(0)).toHaveValue("1");
    await expect(boxes.nth(1)).toHaveValue("2");
    await expect(boxes.nth(2)).toBeFocused();
    await page.keyboard.press("Backspace");
    await expect(boxes.nth(1)).toBeFocused();
    await expect(boxes.nth(1)).toHaveValue("");
    await expect(boxes.nth(0)).toHaveValue("1");
  });
});

test.describe("password strength meter (scripts only)", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the meter needs scripts");

  test("rates the new password Weak, Fair, Good and Strong as it is typed", async ({ page, request }) => {
    const user = await signUpAndVerifyViaApi(request);
    await signInViaForm(page, user.email, user.password, { goto: "/login?from=%2Fchange-password" });
    await expect(page).toHaveURL(/\/change-password$/);
    const next = field(page, "New password");
    const strength = page.getByTestId("password-strength");
    await expect(strength).toHaveText("Weak");
    for (const [value, label] of [
      ["abc", "Weak"],
      ["abcdefgh", "Fair"],
      ["Abcdefgh", "Good"],
      ["Abcdefg1", "Strong"],
      ["Abcdef1!", "Strong"],
    ] as const) {
      await next.fill(value);
      await expect(strength, value).toHaveText(label);
    }
  });
});

test("an account that signs in before verifying is sent to verify, then signs in", async ({ page, request }) => {
  const user = newUser();
  const signup = await request.post("/api/auth/signup", {
    headers: { "Content-Type": "application/json", Origin: BASE_URL },
    data: {
      firstName: user.firstName,
      lastName: user.lastName,
      businessName: user.businessName,
      email: user.email,
      password: user.password,
    },
  });
  expect(signup.status()).toBe(201);

  await signInViaForm(page, user.email, user.password);
  await expect(page).toHaveURL(/\/verify-otp$/);
  await expect(page.getByRole("status").filter({ hasText: "Please verify your email to continue." })).toBeVisible();
  await expect(page.getByText(user.email, { exact: true })).toBeVisible();

  await fillOtpBoxes(page, await latestCode(request, user.email, { kind: "verification" }));
  await page.getByRole("button", { name: "Verify Account" }).click();
  await expect(page.getByRole("status").filter({ hasText: TEXT.verifySuccess }).first()).toBeVisible();
  await page.waitForURL("**/login", { timeout: 30_000 });
  await signInViaForm(page, user.email, user.password, { goto: false });
  await expect(page).toHaveURL(/\/dashboard$/);
});
