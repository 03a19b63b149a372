import { test, expect } from "./fixtures";
import { DEMO, TEXT, field, fillOtpBoxes, otpBoxes, uniqueEmail } from "./helpers";

// Spec section 5: the same messages whether the browser checks (scripts on) or the server does (scripts off).

test.describe("sign-in validation", () => {
  test.beforeEach(async ({ page }) => {
    await page.goto("/login");
  });

  test("an empty submit asks for email and password", async ({ page }) => {
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(field(page, "Email")).toHaveAccessibleDescription(TEXT.emailRequired);
    await expect(field(page, "Password")).toHaveAccessibleDescription(TEXT.passwordRequired);
    // Errors show under the fields, with red borders.
    await expect(page.getByText(TEXT.emailRequired, { exact: true })).toBeVisible();
    await expect(page.getByText(TEXT.passwordRequired, { exact: true })).toBeVisible();
    await expect(field(page, "Email")).toHaveAttribute("aria-invalid", "true");
    // Tailwind's red-500, or red-600 while focused.
    const red = /^oklch\(0\.(637|577) /;
    await expect(field(page, "Email")).toHaveCSS("border-top-color", red);
    await expect(field(page, "Password")).toHaveCSS("border-top-color", red);
    await expect(page).toHaveURL(/\/login$/);
  });

  test("a malformed email is invalid", async ({ page }) => {
    await field(page, "Email").fill("abc");
    await field(page, "Password").fill("secret-enough");
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(field(page, "Email")).toHaveAccessibleDescription(TEXT.emailInvalid);
    await expect(page.getByText(TEXT.emailInvalid, { exact: true })).toBeVisible();
    await expect(field(page, "Password")).not.toHaveAttribute("aria-invalid", "true");
  });

  test("a 5-character password is too short", async ({ page }) => {
    await field(page, "Email").fill(DEMO.email);
    await field(page, "Password").fill("abcde");
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(field(page, "Password")).toHaveAccessibleDescription(TEXT.signinPasswordMin);
    await expect(page.getByText(TEXT.signinPasswordMin, { exact: true })).toBeVisible();
    await expect(field(page, "Email")).not.toHaveAttribute("aria-invalid", "true");
    await expect(page).toHaveURL(/\/login$/);
  });

  test("wrong credentials are refused with one message for both cases", async ({ page }) => {
    // A known address with a wrong password...
    await field(page, "Email").fill(DEMO.email);
    await field(page, "Password").fill("Wrong-password-1");
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText(TEXT.invalidCredentials);
    await expect(page).toHaveURL(/\/login$/);
    // ...and an unknown address read the same.
    const unknown = uniqueEmail("nobody");
    await field(page, "Email").fill(unknown);
    await field(page, "Password").fill("Wrong-password-2");
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText(TEXT.invalidCredentials);
    // Also as an error toast (top right).
    await expect(page.getByRole("alert").filter({ hasText: TEXT.invalidCredentials })).toHaveCount(2);
    // The typed address stays for another try.
    await expect(field(page, "Email")).toHaveValue(unknown);
    await expect(page).toHaveURL(/\/login$/);
  });
});

test.describe("sign-up validation", () => {
  test.beforeEach(async ({ page }) => {
    await page.goto("/signup");
  });

  const submit = (page: import("@playwright/test").Page) => page.getByRole("button", { name: "Create Account" }).click();
  const formAlert = (page: import("@playwright/test").Page) => page.locator("form").getByRole("alert");

  test("empty required fields", async ({ page }) => {
    await submit(page);
    await expect(formAlert(page)).toHaveText(TEXT.requiredFields);
    await expect(page).toHaveURL(/\/signup$/);
  });

  test("passwords that do not match", async ({ page, javaScriptEnabled }) => {
    const email = uniqueEmail("mismatch");
    await field(page, "First name").fill("Achieng");
    await field(page, "Last name").fill("Otieno");
    await field(page, "Business/Organization name (optional)").fill("Otieno Hardware");
    await field(page, "Email").fill(email);
    await field(page, "Phone (optional)").fill("0712 345 678");
    await field(page, "Password").fill("Karibu#2026a");
    await field(page, "Confirm password").fill("Karibu#2026b");
    await page.getByRole("checkbox", { name: /I agree to the Terms of Service/ }).check();
    await submit(page);
    await expect(field(page, "Confirm password")).toHaveAccessibleDescription(TEXT.signupMismatch);
    await expect(page.getByText(TEXT.signupMismatch, { exact: true })).toBeVisible();
    await expect(page.getByText(TEXT.signupSuccess)).toHaveCount(0);
    // What was typed (other than passwords) is kept, the ticked terms box too (issue 39: also when the server answers).
    await expect(field(page, "First name")).toHaveValue("Achieng");
    await expect(field(page, "Last name")).toHaveValue("Otieno");
    await expect(field(page, "Business/Organization name (optional)")).toHaveValue("Otieno Hardware");
    await expect(field(page, "Email")).toHaveValue(email);
    await expect(field(page, "Phone (optional)")).toHaveValue("0712 345 678");
    await expect(page.getByRole("checkbox", { name: /I agree to the Terms of Service/ })).toBeChecked();
    // Without JavaScript the page came back from the server, which never sends a password back.
    if (!javaScriptEnabled) {
      await expect(field(page, "Password")).toHaveValue("");
      await expect(field(page, "Confirm password")).toHaveValue("");
    }
  });

  test("terms not agreed", async ({ page, request }) => {
    const email = uniqueEmail("noterms");
    await field(page, "First name").fill("Achieng");
    await field(page, "Last name").fill("Otieno");
    await field(page, "Email").fill(email);
    await field(page, "Password").fill("Karibu#2026a");
    await field(page, "Confirm password").fill("Karibu#2026a");
    await submit(page);
    await expect(page.getByRole("checkbox", { name: /I agree to the Terms of Service/ })).toHaveAccessibleDescription(TEXT.terms);
    await expect(page.getByText(TEXT.terms, { exact: true })).toBeVisible();
    await expect(page.getByText(TEXT.signupSuccess)).toHaveCount(0);
    // Nothing was created: no code went out.
    const mails = (await (await request.get("/sandbox/mail.json")).json()) as Array<{ to: string }>;
    expect(mails.filter((m) => m.to === email)).toEqual([]);
  });
});

test("the verify page wants all six digits", async ({ page }) => {
  await page.goto("/verify-otp");
  // Opened directly (no sign-up cookie), it asks for the address too.
  await field(page, "Email").fill(uniqueEmail("partial"));
  await fillOtpBoxes(page, "123");
  await page.getByRole("button", { name: "Verify Account" }).click();
  await expect(otpBoxes(page).first()).toHaveAccessibleDescription(TEXT.otpIncomplete);
  await expect(page.getByText(TEXT.otpIncomplete, { exact: true })).toBeVisible();
  await expect(otpBoxes(page).first()).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(/\/verify-otp$/);
});
