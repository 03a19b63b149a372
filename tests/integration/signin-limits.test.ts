import { describe, expect, it } from "vitest";
import { action as apiSignin } from "~/routes/api/auth.signin";
import { action as loginAction } from "~/routes/auth/login";
import { action as changeAction } from "~/routes/app/change-password";
import { action as forgotAction } from "~/routes/auth/forgot-password";
import { action as resetAction } from "~/routes/auth/reset-password";
import { drainJobs } from "~/.server/jobs/worker";
import { registerJobHandlers } from "~/.server/jobs/handlers";
import { cookieHeader, formRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor, signedInCookie, uniqueEmail } from "../support/accounts";

const LIMITED = /^Too many attempts\. Please try again in \d+ minutes?\.$/;
registerJobHandlers();

/** The known-device cookie a successful sign-in left in the browser, as a Cookie header. */
function deviceCookieFrom(setCookies: string[]) {
  const device = setCookies.filter((c) => c.startsWith("jumbe_device="));
  expect(device).toHaveLength(1);
  return cookieHeader(device);
}

async function attack(email: string, times: number, ipPrefix = "192.0.2.", cookie?: string) {
  for (let i = 0; i < times; i++) {
    const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Wrong#Pass1" }, { cookie }), {
      ip: `${ipPrefix}${i + 1}`,
    });
    expect(res.status).toBe(401);
  }
}

describe("sign-in limits count failures only", () => {
  it("never counts a successful sign-in: the owner's 12th sign-in in a window still works", async () => {
    const { email, password } = await createVerifiedUser();
    for (let i = 0; i < 12; i++) expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).status).toBe(200);
  });

  it("refuses an unknown device after ten failures from ten addresses, but the owner's known device signs in", async () => {
    const { email, password } = await createVerifiedUser();
    const first = await run(loginAction, formRequest("/login", { email, password }), { ip: "198.51.100.20" });
    expect(first.status).toBe(302);
    const device = deviceCookieFrom(first.setCookies);
    expect(first.setCookies.find((c) => c.startsWith("jumbe_device="))).toMatch(/HttpOnly/);

    await attack(email, 10);
    const stranger = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.99" });
    expect(stranger.status).toBe(429);
    expect(stranger.data.message).toMatch(LIMITED);

    const owner = await run(loginAction, formRequest("/login", { email, password }, { cookie: device }), { ip: "198.51.100.21" });
    expect(owner.status).toBe(302);
    expect(owner.location).toBe("/dashboard");
    const api = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }, { cookie: device }), { ip: "198.51.100.22" });
    expect(api.status).toBe(200);
  });

  it("lets no more than ten of twenty concurrent wrong passwords reach the password check", async () => {
    const { email } = await createVerifiedUser();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Wrong#Pass1" }), { ip: `192.0.2.${i + 1}` }),
      ),
    );
    expect(results.filter((r) => r.status === 401)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
  });

  it("limits guesses made with a stolen known-device cookie on their own", async () => {
    const { email, password } = await createVerifiedUser();
    const device = deviceCookieFrom((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    await attack(email, 10, "192.0.2.", device);
    const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }, { cookie: device }), { ip: "192.0.2.99" });
    expect(res.status).toBe(429);
    expect(res.data.message).toMatch(LIMITED);
  });

  it("gives another account's known-device cookie no pass", async () => {
    const owner = await createVerifiedUser();
    const other = await createVerifiedUser();
    const device = deviceCookieFrom(
      (await run(apiSignin, jsonRequest("/api/auth/signin", { email: other.email, password: other.password }))).setCookies,
    );
    await attack(owner.email, 10);
    const res = await run(
      apiSignin,
      jsonRequest("/api/auth/signin", { email: owner.email, password: owner.password }, { cookie: device }),
      { ip: "192.0.2.99" },
    );
    expect(res.status).toBe(429);
  });

  it("refuses a forged or tampered known-device cookie", async () => {
    const { email, password, user } = await createVerifiedUser();
    const device = deviceCookieFrom((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    await attack(email, 10);
    const tampered = device.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    const forged = `jumbe_device=${user.id}.${Math.floor(Date.now() / 1000)}.${"0".repeat(64)}`;
    for (const cookie of [tampered, forged]) {
      expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }, { cookie }), { ip: "192.0.2.99" })).status).toBe(
        429,
      );
    }
  });

  it("lets the owner back in from any device after a password reset by e-mail", async () => {
    const { email, password } = await createVerifiedUser();
    await attack(email, 10);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.99" })).status).toBe(429);
    const asked = await run(forgotAction, formRequest("/forgot-password", { email }));
    await drainJobs();
    const code = await latestCodeFor(email);
    const reset = await run(
      resetAction,
      formRequest(
        "/reset-password",
        { otp: code, newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" },
        { cookie: cookieHeader(asked.setCookies) },
      ),
    );
    expect(reset.location).toBe("/login");
    expect(
      (await run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Mpya#Password9" }), { ip: "192.0.2.99" })).status,
    ).toBe(200);
  });

  it("bounds failures per IP, and counts an IPv6 /64 as one address", async () => {
    for (let i = 0; i < 30; i++) {
      const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email: uniqueEmail(), password: "Wrong#Pass1" }), {
        ip: `2001:db8:1:2::${(i + 1).toString(16)}`,
      });
      expect(res.status).toBe(401);
    }
    const { email, password } = await createVerifiedUser();
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "2001:db8:1:2:ffff::1" })).status).toBe(429);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "2001:db8:1:3::1" })).status).toBe(200);
  });

  it("does not spend the per-IP allowance on successful sign-ins", async () => {
    const { email, password } = await createVerifiedUser();
    for (let i = 0; i < 31; i++)
      expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "203.0.113.50" })).status).toBe(200);
  });
});

describe("change-password limits", () => {
  it("has its own failure counter: failed sign-ins do not block a signed-in user's change", async () => {
    const user = await createVerifiedUser();
    const cookie = await signedInCookie(user.email, user.password);
    await attack(user.email, 10);
    const res = await run(
      changeAction,
      formRequest(
        "/change-password",
        { currentPassword: user.password, newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" },
        { cookie },
      ),
    );
    expect(res.status).toBe(302);
  });

  it("keeps the browser that changed the password a known device, while other devices are forgotten", async () => {
    const { email, password } = await createVerifiedUser();
    const first = await run(loginAction, formRequest("/login", { email, password }), { ip: "198.51.100.30" });
    const device = deviceCookieFrom(first.setCookies);
    const other = deviceCookieFrom(
      (await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "198.51.100.31" })).setCookies,
    );
    const newPassword = "Mpya#Password9";
    const changed = await run(
      changeAction,
      formRequest(
        "/change-password",
        { currentPassword: password, newPassword, confirmPassword: newPassword },
        { cookie: cookieHeader(first.setCookies) },
      ),
    );
    expect(changed.status).toBe(302);
    const renewed = deviceCookieFrom(changed.setCookies);

    await attack(email, 10);
    const signIn = (cookie: string) =>
      run(apiSignin, jsonRequest("/api/auth/signin", { email, password: newPassword }, { cookie }), { ip: "198.51.100.32" });
    expect((await signIn(renewed)).status).toBe(200);
    expect((await signIn(other)).status).toBe(429);
    expect((await signIn(device)).status).toBe(429);
  });

  it("refuses after ten wrong current passwords, and those do not lock sign-in", async () => {
    const user = await createVerifiedUser();
    const cookie = await signedInCookie(user.email, user.password);
    const change = (currentPassword: string) =>
      run(
        changeAction,
        formRequest("/change-password", { currentPassword, newPassword: "Mpya#Password9", confirmPassword: "Mpya#Password9" }, { cookie }),
      );
    for (let i = 0; i < 10; i++) expect((await change("Nope#12345")).status).toBe(400);
    const limited = await change(user.password);
    expect(limited.status).toBe(429);
    expect(limited.data.toast.message).toMatch(LIMITED);
    expect(
      (await run(apiSignin, jsonRequest("/api/auth/signin", { email: user.email, password: user.password }), { ip: "203.0.113.60" }))
        .status,
    ).toBe(200);
  });
});
