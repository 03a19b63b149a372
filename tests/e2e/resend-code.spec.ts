import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { test, expect } from "./fixtures";
import { TEXT, fillOtpBoxes, latestCode, mailsTo, newUser, otpBoxes, signUpViaForm } from "./helpers";
import { ownServer } from "./own-server";

// A user who never got the code must be able to ask for another from /verify-otp, with the boxes
// empty, with scripts on and off. The server enforces the 30 s window and says so.

const TOO_EARLY = /^Please wait \d+ seconds before requesting a new code\.$/;

test("without JavaScript, Resend OTP is usable at once and the server answers it", async ({ page, request, javaScriptEnabled }) => {
  test.skip(javaScriptEnabled, "the no-JavaScript page");
  const user = newUser();
  await signUpViaForm(page, user);

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
  await signUpViaForm(page, user);

  await expect(page.getByRole("button", { name: /^Resend OTP in \d+s$/ })).toBeDisabled();
  await page.clock.fastForward(31_000);
  const resend = page.getByRole("button", { name: "Resend OTP", exact: true });
  await expect(resend).toBeEnabled();
  for (let i = 0; i < 6; i++) await expect(otpBoxes(page).nth(i)).toHaveValue("");

  const answered = page.waitForResponse(
    (response) => response.request().method() === "POST" && new URL(response.url()).pathname.startsWith("/verify-otp"),
  );
  await resend.click();
  const response = await answered;
  expect(response.request().postData() ?? "").toContain("intent=resend");
  // Only the browser's clock moved, so the server's window has not passed: it says so.
  await expect(page.getByRole("alert").filter({ hasText: TOO_EARLY }).first()).toBeVisible();
  await expect(page.getByText(TEXT.otpIncomplete)).toHaveCount(0);
});

test("once the server's 30 s have passed, Resend OTP with the boxes empty mails a new code that verifies", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  // A server of its own: between its stop and its restart, the window the sign-up opened is moved
  // 30 s into the past in its database (what 30 s of waiting would do, without the wait). Nothing in
  // the product is changed or bypassed: the same code path then finds the window closed.
  test.setTimeout(180_000); // a server start (up to own-server.ts's deadline) and the 30 s resend wait
  const server = await ownServer("resend");
  try {
    await server.start();
    if (javaScriptEnabled) await page.clock.install();
    const user = newUser();
    await signUpViaForm(page, user, { base: server.base });
    const first = await latestCode(request, user.email, { kind: "verification", base: server.base });
    if (javaScriptEnabled) {
      // Hydrated (the countdown runs) and done loading what it prefetches: nothing is asked of the
      // server while it is down.
      await expect(page.getByRole("button", { name: /^Resend OTP in \d+s$/ })).toBeDisabled();
      await page.waitForLoadState("networkidle");
    }

    await server.stop();
    const db = await PGlite.create(path.join(server.dataDir, "pglite"));
    try {
      const aged = await db.query(
        "update rate_limits set window_start = window_start - interval '30 seconds' where key = 'code:resend:' || (select id from users where lower(email) = lower($1)) returning key",
        [user.email],
      );
      expect(aged.rows, "the window the sign-up opened").toHaveLength(1);
    } finally {
      await db.close();
    }
    await server.start();

    // With scripts, the button counts down in the browser: its clock is moved on as well.
    if (javaScriptEnabled) await page.clock.fastForward(31_000);
    const resend = page.getByRole("button", { name: "Resend OTP", exact: true });
    await expect(resend).toBeEnabled();
    for (let i = 0; i < 6; i++) await expect(otpBoxes(page).nth(i)).toHaveValue("");
    await resend.click();

    await expect(page.getByRole("status").filter({ hasText: "New OTP sent to your email" })).toBeVisible();
    await expect(page.getByText(TEXT.otpIncomplete)).toHaveCount(0);
    const second = await latestCode(request, user.email, { kind: "verification", except: [first], base: server.base });
    expect(await mailsTo(request, user.email, server.base)).toHaveLength(2);
    // With scripts the countdown restarts at 30; without, the server keeps the new window.
    if (javaScriptEnabled) await expect(page.getByRole("button", { name: /^Resend OTP in \d+s$/ })).toBeDisabled();

    await fillOtpBoxes(page, second);
    await page.getByRole("button", { name: "Verify Account" }).click();
    await expect(page.getByText(TEXT.verifySuccess).first()).toBeVisible();
    // Then on to sign in (1.5 s later, by script or by the page's refresh without it).
    await page.waitForURL(`${server.base}/login`);
    await expect(page.getByRole("button", { name: "Sign In", exact: true })).toBeVisible();
  } finally {
    // Nothing left loading from the server about to stop.
    await page.goto("about:blank");
    await server.dispose();
  }
});
