import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, mailOutbox, sessions } from "~/.server/infrastructure/db/schema";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { action as forgotAction } from "~/routes/auth/forgot-password";
import { action as resetAction, loader as resetLoader } from "~/routes/auth/reset-password";
import { action as changeAction } from "~/routes/app/change-password";
import { loader as apiMe } from "~/routes/api/auth.me";
import { action as apiSignin } from "~/routes/api/auth.signin";
import { cookieHeader, formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor, signedInCookie } from "../support/accounts";

// The reset mail goes out from a job (reset-mail-job.ts); tests run it with drainJobs().
registerJobHandlers();

describe("forgot and reset password", () => {
  it("mails a code, sets the new password and ends every session", async () => {
    const user = await createVerifiedUser();
    const phone = await signedInCookie(user.email, user.password, true);
    const laptop = await signedInCookie(user.email, user.password);
    const asked = await run(forgotAction, formRequest("/forgot-password", { email: user.email }));
    expect(asked.location).toBe("/reset-password");
    const cookie = cookieHeader(asked.setCookies);
    expect((await run(resetLoader, getRequest("/reset-password", { cookie }))).data).toEqual({ email: user.email });

    await drainJobs();
    const code = await latestCodeFor(user.email);
    const reset = await run(
      resetAction,
      formRequest("/reset-password", { otp: code.split(""), newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" }, { cookie }),
    );
    expect(reset.location).toBe("/login");
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.user.id))).toHaveLength(0);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: phone }))).status).toBe(401);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: laptop }))).status).toBe(401);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email: user.email, password: user.password }))).status).toBe(401);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email: user.email, password: "Mpya#Password9" }))).status).toBe(200);
    const actions = (await db().select().from(activityLogs).where(eq(activityLogs.userId, user.user.id))).map((l) => l.action);
    expect(actions).toContain("Password reset");
  });

  it("answers an unknown address exactly like a known one and mails nothing", async () => {
    const res = await run(forgotAction, formRequest("/forgot-password", { email: "nobody@example.co.ke" }));
    expect(res.location).toBe("/reset-password");
    await drainJobs();
    expect(await db().select().from(mailOutbox)).toHaveLength(0);
  });

  it("refuses a wrong code and the spec's password rules, changing nothing", async () => {
    const user = await createVerifiedUser();
    const cookie = cookieHeader([await signedCookies().resetEmail.serialize(user.email)]);
    await run(forgotAction, formRequest("/forgot-password", { email: user.email }));
    await drainJobs();
    const code = await latestCodeFor(user.email);
    const wrong = await run(
      resetAction,
      formRequest(
        "/reset-password",
        { otp: code === "999999" ? "111111" : "999999", newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" },
        { cookie },
      ),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.data.result.error[""]).toEqual(["Invalid verification code. Please try again."]);
    const short = await run(
      resetAction,
      formRequest("/reset-password", { otp: code, newPassword: "short", confirmPassword: "short" }, { cookie }),
    );
    expect(short.data.result.error.newPassword).toEqual(["Password must be at least 8 characters long"]);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email: user.email, password: user.password }))).status).toBe(200);
  });
});

describe("change password", () => {
  it("checks the current password, changes it and signs out every other session only", async () => {
    const user = await createVerifiedUser();
    const here = await signedInCookie(user.email, user.password);
    const elsewhere = await signedInCookie(user.email, user.password);
    const wrong = await run(
      changeAction,
      formRequest(
        "/change-password",
        { currentPassword: "Nope#12345", newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" },
        { cookie: here },
      ),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.data.result.error.currentPassword).toEqual(["Current password is incorrect"]);

    const ok = await run(
      changeAction,
      formRequest(
        "/change-password",
        { currentPassword: user.password, newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" },
        { cookie: here },
      ),
    );
    expect(ok.status).toBe(302);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: here }))).status).toBe(200);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: elsewhere }))).status).toBe(401);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email: user.email, password: "Mpya#Password9" }))).status).toBe(200);
  });

  it.each([
    [{ currentPassword: "" }, "currentPassword", "Current password is required"],
    [{ newPassword: "" }, "newPassword", "New password is required"],
    [{ newPassword: "Short1!", confirmPassword: "Short1!" }, "newPassword", "Password must be at least 8 characters long"],
    [{ confirmPassword: "" }, "confirmPassword", "Please confirm your new password"],
    [{ confirmPassword: "Other#Password9" }, "confirmPassword", "Passwords do not match"],
    [
      { newPassword: "Correct#Horse1", confirmPassword: "Correct#Horse1" },
      "newPassword",
      "New password must be different from current password",
    ],
  ])("refuses %o with the spec's message", async (change, field, message) => {
    const user = await createVerifiedUser();
    const cookie = await signedInCookie(user.email, user.password);
    const res = await run(
      changeAction,
      formRequest(
        "/change-password",
        { currentPassword: user.password, newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9", ...change },
        { cookie },
      ),
    );
    expect(res.status).toBe(400);
    expect(res.data.result.error[field]).toEqual([message]);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email: user.email, password: user.password }))).status).toBe(200);
  });
});
