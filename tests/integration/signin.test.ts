import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, organizations, sessions, users } from "~/.server/infrastructure/db/schema";
import { sha256 } from "~/.server/infrastructure/security/crypto";
import { action as loginAction } from "~/routes/auth/login";
import { action as logoutAction } from "~/routes/auth/logout";
import { action as apiSignin } from "~/routes/api/auth.signin";
import { action as apiLogout } from "~/routes/api/auth.logout";
import { loader as apiMe } from "~/routes/api/auth.me";
import { loader as dashboardLoader } from "~/routes/app/dashboard";
import { cookieHeader, formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor, latestMailTo, uniqueEmail } from "../support/accounts";

afterEach(() => vi.useRealTimers());

function sessionTokenFrom(setCookies: string[]) {
  const cookie = setCookies.find((c) => c.startsWith("jumbe_session="))!;
  return cookie.split(";")[0]!.split("=")[1]!;
}

describe("sign-in", () => {
  it("opens a database session in an HttpOnly, SameSite=Lax browser-session cookie and answers the spec's user", async () => {
    const { email, password, user, organization } = await createVerifiedUser({ businessName: "Duka la Amani" });
    const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }));
    expect(res.status).toBe(200);
    expect(res.data.message).toBe("Login successful!");
    expect(res.data.user).toMatchObject({
      id: user.id,
      email,
      businessName: "Duka la Amani",
      usertype: "individual",
      businessId: organization.businessId,
      whatsappNumber: "",
      accountStatus: "active",
      planType: "Starter",
      billingType: "postpaid",
      messagesUsed: 0,
      messageLimit: 1000,
      isVerified: true,
    });
    expect(res.data.user.lastLogin).not.toBeNull();
    const cookie = res.setCookies.find((c) => c.startsWith("jumbe_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Max-Age|Expires/);
    const token = sessionTokenFrom(res.setCookies);
    expect(token.length).toBeGreaterThanOrEqual(43);
    const [row] = await db().select().from(sessions).where(eq(sessions.userId, user.id));
    expect(row!.id).toBe(sha256(token));
    expect(row!.persistent).toBe(false);
    expect(row).toMatchObject({ ipAddress: "198.51.100.7", userAgent: "vitest" });
  });

  it("keeps a remembered session for 30 days and a browser session for one idle day", async () => {
    const { email, password } = await createVerifiedUser();
    const remembered = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password, remember: true }));
    expect(remembered.setCookies.find((c) => c.startsWith("jumbe_session="))).toMatch(/Max-Age=2592000/);
    const browser = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }));
    const rememberedCookie = cookieHeader(remembered.setCookies);
    const browserCookie = cookieHeader(browser.setCookies);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 25 * 3600_000 });
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: browserCookie }))).status).toBe(401);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: rememberedCookie }))).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 31 * 24 * 3600_000 });
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: rememberedCookie }))).status).toBe(401);
  });

  it("issues a new session id at every sign-in", async () => {
    const { email, password } = await createVerifiedUser();
    const a = sessionTokenFrom((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    const b = sessionTokenFrom((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    expect(a).not.toBe(b);
  });

  it("gives a wrong password and an unknown e-mail the same answer, and logs the failure", async () => {
    const { email, user } = await createVerifiedUser();
    const wrongPassword = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Wrong#Pass1" }));
    const unknown = await run(apiSignin, jsonRequest("/api/auth/signin", { email: "ghost@example.co.ke", password: "Wrong#Pass1" }));
    expect(wrongPassword.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrongPassword.data).toEqual({ message: "Invalid email or password." });
    expect(unknown.data).toEqual(wrongPassword.data);
    expect(wrongPassword.setCookies).toEqual([]);
    const logs = await db().select().from(activityLogs).where(eq(activityLogs.userId, user.id));
    expect(logs).toEqual([
      expect.objectContaining({ type: "login", status: "error", action: "Sign-in failed", ipAddress: "198.51.100.7" }),
    ]);
  });

  it("applies the spec's form messages with JavaScript off", async () => {
    const empty = await run(loginAction, formRequest("/login", { email: "", password: "" }));
    expect(empty.data.result.error).toMatchObject({ email: ["Email is required"], password: ["Password is required"] });
    const bad = await run(loginAction, formRequest("/login", { email: "abc", password: "12345" }));
    expect(bad.data.result.error).toMatchObject({ email: ["Email is invalid"], password: ["Password must be at least 6 characters"] });
    const wrong = await run(loginAction, formRequest("/login", { email: "x@y.co", password: "123456" }));
    expect(wrong.status).toBe(401);
    expect(wrong.data.result.error[""]).toEqual(["Invalid email or password."]);
    expect(wrong.data.toast.message).toBe("Invalid email or password.");
  });

  it("sends an unverified account to verify with a fresh code", async () => {
    const { email, password } = await createVerifiedUser({ verified: false });
    const res = await run(loginAction, formRequest("/login", { email, password }));
    expect(res.status).toBe(302);
    expect(res.location).toBe("/verify-otp");
    expect(res.setCookies.some((c) => c.startsWith("otp_email="))).toBe(true);
    expect(res.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
    expect(await latestCodeFor(email)).toMatch(/^\d{6}$/);
    const api = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }));
    expect(api.status).toBe(403);
    expect(api.data.requiresVerification).toBe(true);
  });

  it("refuses a suspended account with a clear message, and ends its open sessions' access", async () => {
    const { email, password, organization } = await createVerifiedUser();
    const cookie = cookieHeader((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    await db().update(organizations).set({ status: "suspended" }).where(eq(organizations.id, organization.id));
    const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }));
    expect(res.status).toBe(403);
    expect(res.data.message).toBe("Your account has been suspended. Please contact support@jumbe.co.ke.");
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie }))).status).toBe(401);
  });

  it("limits sign-in attempts per account and address, not per account alone", async () => {
    const { email, password } = await createVerifiedUser();
    for (let i = 0; i < 10; i++)
      expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Wrong#Pass1" }), { ip: "192.0.2.1" })).status).toBe(
        401,
      );
    const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.1" });
    expect(res.status).toBe(429);
    expect(res.data.message).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.99" })).status).toBe(200);
  });

  it("limits sign-in attempts per IP, across accounts", async () => {
    for (let i = 0; i < 30; i++)
      await run(apiSignin, jsonRequest("/api/auth/signin", { email: uniqueEmail(), password: "Wrong#Pass1" }), { ip: "192.0.2.200" });
    const { email, password } = await createVerifiedUser();
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.200" })).status).toBe(429);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.201" })).status).toBe(200);
  });
});

describe("sign-out", () => {
  it("deletes the session row and clears the cookie, from the page and the API", async () => {
    const { email, password, user } = await createVerifiedUser();
    const cookie = cookieHeader((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    const res = await run(logoutAction, formRequest("/logout", {}, { cookie }));
    expect(res.status).toBe(302);
    expect(res.location).toBe("/signin");
    expect(res.setCookies.find((c) => c.startsWith("jumbe_session="))).toMatch(/Max-Age=0/);
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
    // The old cookie is dead even if a client kept it.
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie }))).status).toBe(401);
    const dashboard = await run(dashboardLoader, getRequest("/dashboard", { cookie }));
    expect(dashboard.location).toBe("/login?from=%2Fdashboard");

    const again = cookieHeader((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    expect((await run(apiLogout, jsonRequest("/api/auth/logout", {}, { cookie: again }))).data).toEqual({ message: "Logged out" });
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: again }))).data).toEqual({ message: "Unauthorized: Please log in." });
    const actions = (await db().select().from(activityLogs).where(eq(activityLogs.userId, user.id))).map((l) => l.action);
    expect(actions.filter((a) => a === "Signed out")).toHaveLength(2);
  });

  it("signing out by GET changes nothing", async () => {
    const { email, password, user } = await createVerifiedUser();
    const cookie = cookieHeader((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    const { loader } = await import("~/routes/auth/logout");
    await run(loader, getRequest("/logout", { cookie }));
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });
});

describe("sign-in mail", () => {
  it("does not mail a verified user on sign-in", async () => {
    const { email, password } = await createVerifiedUser();
    await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }));
    expect(await latestMailTo(email)).toBeNull();
    const [u] = await db().select().from(users).where(eq(users.email, email));
    expect(u!.lastLoginAt).not.toBeNull();
  });
});

describe("session rotation", () => {
  it("ends the browser's previous session when it signs in again", async () => {
    const { email, password, user } = await createVerifiedUser();
    const first = cookieHeader((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    const second = await run(loginAction, formRequest("/login", { email, password }, { cookie: first }));
    expect(second.status).toBe(302);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: first }))).status).toBe(401);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: cookieHeader(second.setCookies) }))).status).toBe(200);
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });
});
