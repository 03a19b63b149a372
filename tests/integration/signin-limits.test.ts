import { afterEach, describe, expect, it, vi } from "vitest";
import { action as apiSignin } from "~/routes/api/auth.signin";
import { action as apiEmailCode } from "~/routes/api/auth.email-code";
import { action as loginAction } from "~/routes/auth/login";
import { action as emailCodeAction, loader as emailCodeLoader } from "~/routes/auth/email-code";
import { action as twoFactorAction } from "~/routes/auth/two-factor";
import { action as securityAction, loader as securityLoader } from "~/routes/app/settings/security";
import { loader as apiMe } from "~/routes/api/auth.me";
import { CODE_MESSAGES } from "~/.server/domains/auth/codes";
import { EMAIL_CODE_MESSAGES } from "~/.server/domains/auth/email-code/pending";
import { codeForStep, stepAt, TOTP_STEP_SECONDS } from "~/.server/domains/auth/two-factor/totp";
import { action as changeAction } from "~/routes/app/change-password";
import { action as forgotAction } from "~/routes/auth/forgot-password";
import { action as resetAction } from "~/routes/auth/reset-password";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { cookieHeader, formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor, latestMailTo, signedInCookie, uniqueEmail } from "../support/accounts";

const LIMITED = /^Too many attempts\. Please try again in \d+ minutes?\.$/;
/** More failures than one address may make (ten): only an attack from several addresses gets there. */
const MANY = 12;
registerJobHandlers();
afterEach(() => vi.useRealTimers());

/** The known-device cookie a successful sign-in left in the browser, as a Cookie header. */
function deviceCookieFrom(setCookies: string[]) {
  const device = setCookies.filter((c) => c.startsWith("jumbe_device="));
  expect(device).toHaveLength(1);
  return cookieHeader(device);
}

/** One wrong password from each of `times` addresses. */
async function attack(email: string, times: number, ipPrefix = "192.0.2.", cookie?: string) {
  for (let i = 0; i < times; i++) {
    const res = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Wrong#Pass1" }, { cookie }), {
      ip: `${ipPrefix}${i + 1}`,
    });
    expect(res.status).toBe(401);
  }
}

/** The JSON API's answer to a right password from a browser the account does not know, while it is under attack. */
function expectEmailCodeStep(res: { status: number; data: unknown; setCookies: string[] }) {
  expect(res.status).toBe(202);
  expect(res.data).toEqual({ message: EMAIL_CODE_MESSAGES.askCode, requiresEmailCode: true });
  expect(res.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
  expect(res.setCookies.some((c) => c.startsWith("jumbe_email_code="))).toBe(true);
}

describe("sign-in limits count failures only", () => {
  it("never counts a successful sign-in: the owner's 12th sign-in in a window still works", async () => {
    const { email, password } = await createVerifiedUser();
    for (let i = 0; i < 12; i++) expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).status).toBe(200);
  });

  it("refuses the address that failed ten times, and only it: the owner signs straight in from another", async () => {
    const { email, password } = await createVerifiedUser();
    const stranger = { ip: "203.0.113.70" };
    for (let i = 0; i < 10; i++) {
      const wrong = await run(loginAction, formRequest("/login", { email, password: "Wrong#Pass1" }), stranger);
      expect(wrong.status).toBe(401);
      expect(wrong.data.result.error[""]).toEqual(["Invalid email or password."]);
    }
    for (const tried of ["Wrong#Pass1", password]) {
      const refused = await run(loginAction, formRequest("/login", { email, password: tried }), stranger);
      expect(refused.status).toBe(429);
      expect(refused.data.result.error[""]).toEqual([expect.stringMatching(LIMITED)]);
      expect(refused.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
    }

    // The owner, on a browser and address the account has never seen: no refusal, no extra step.
    const owner = await run(loginAction, formRequest("/login", { email, password }), { ip: "198.51.100.71" });
    expect(owner.status).toBe(302);
    expect(owner.location).toBe("/dashboard");
    const me = await run(apiMe, getRequest("/api/auth/me", { cookie: cookieHeader(owner.setCookies) }));
    expect(me.data.user.email).toBe(email);
    expect(await latestMailTo(email)).toBeNull();
  });

  it("asks a new browser for a code e-mailed to the account when failures come from many addresses; a known device signs straight in", async () => {
    const { email, password } = await createVerifiedUser();
    const first = await run(loginAction, formRequest("/login", { email, password }), { ip: "198.51.100.20" });
    expect(first.status).toBe(302);
    const device = deviceCookieFrom(first.setCookies);
    expect(first.setCookies.find((c) => c.startsWith("jumbe_device="))).toMatch(/HttpOnly/);

    await attack(email, MANY);
    const stranger = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.99" });
    expectEmailCodeStep(stranger);
    expect(await latestCodeFor(email)).toMatch(/^\d{6}$/);

    const owner = await run(loginAction, formRequest("/login", { email, password }, { cookie: device }), { ip: "198.51.100.21" });
    expect(owner.status).toBe(302);
    expect(owner.location).toBe("/dashboard");
    const api = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }, { cookie: device }), { ip: "198.51.100.22" });
    expect(api.status).toBe(200);
  });

  it("lets no more than ten of twenty concurrent wrong passwords from one address reach the password check", async () => {
    const { email } = await createVerifiedUser();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        run(apiSignin, jsonRequest("/api/auth/signin", { email, password: "Wrong#Pass1" }), { ip: "203.0.113.72" }),
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
    await attack(owner.email, MANY);
    const res = await run(
      apiSignin,
      jsonRequest("/api/auth/signin", { email: owner.email, password: owner.password }, { cookie: device }),
      { ip: "192.0.2.99" },
    );
    expectEmailCodeStep(res);
  });

  it("takes a forged or tampered known-device cookie for a new browser", async () => {
    const { email, password, user } = await createVerifiedUser();
    const device = deviceCookieFrom((await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }))).setCookies);
    await attack(email, MANY);
    const tampered = device.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    const forged = `jumbe_device=${user.id}.${Math.floor(Date.now() / 1000)}.${"0".repeat(64)}`;
    for (const cookie of [tampered, forged])
      expectEmailCodeStep(await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }, { cookie }), { ip: "192.0.2.99" }));
  });

  it("lets the owner back in from any device, without a code, after a password reset by e-mail", async () => {
    const { email, password } = await createVerifiedUser();
    await attack(email, MANY);
    expectEmailCodeStep(await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip: "192.0.2.99" }));
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

    await attack(email, MANY);
    const signIn = (cookie: string) =>
      run(apiSignin, jsonRequest("/api/auth/signin", { email, password: newPassword }, { cookie }), { ip: "198.51.100.32" });
    expect((await signIn(renewed)).status).toBe(200);
    expectEmailCodeStep(await signIn(other));
    expectEmailCodeStep(await signIn(device));
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

describe("the e-mailed sign-in code, while an account sees failures from many addresses", () => {
  /** A new browser gives the right password on the sign-in form (JavaScript off); answers the code page's cookie. */
  async function reachCodeStep(email: string, password: string, ip: string, from?: string) {
    const res = await run(loginAction, formRequest("/login", { email, password, ...(from ? { from } : {}) }), { ip });
    expect(res.status).toBe(302);
    expect(res.location).toBe(from ? `/login/email-code?from=${encodeURIComponent(from)}` : "/login/email-code");
    expect(res.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
    const pending = res.setCookies.find((c) => c.startsWith("jumbe_email_code="));
    expect(pending).toMatch(/HttpOnly/);
    expect(pending).toMatch(/SameSite=Lax/);
    return cookieHeader(res.setCookies);
  }

  const post = (fields: Record<string, string>, cookie: string, ip: string) =>
    run(emailCodeAction, formRequest("/login/email-code", fields, { cookie }), { ip });

  it("signs in with the right code from the e-mail, with JavaScript off, after refusing a wrong one", async () => {
    const { email, password, user } = await createVerifiedUser();
    await attack(email, MANY, "10.1.0.");
    const ip = "198.51.100.90";
    const cookie = await reachCodeStep(email, password, ip, "/profile");
    const page = await run(emailCodeLoader, getRequest("/login/email-code", { cookie }), { ip });
    expect(page.status).toBe(200);
    expect(page.data).toMatchObject({ email, notice: EMAIL_CODE_MESSAGES.askCode, from: "" });

    const mail = (await latestMailTo(email))!;
    expect(mail.subject).toMatch(/^Your Jumbe sign-in code: \d{6}$/);
    expect(mail.textBody).toContain("IP address 198.51.100.90");
    expect(mail.textBody).toContain("/forgot-password");
    const code = await latestCodeFor(email);

    const wrong = await post({ otp: code === "000000" ? "111111" : "000000" }, cookie, ip);
    expect(wrong.status).toBe(400);
    expect(wrong.data.result.error.otp).toEqual([CODE_MESSAGES.invalid]);
    expect(wrong.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
    const shaped = await post({ otp: "12ab" }, cookie, ip);
    expect(shaped.status).toBe(400);
    expect(shaped.data.result.error.otp).toEqual(["Please enter the complete 6-digit OTP code"]);

    const done = await post({ otp: code, from: "/profile" }, cookie, ip);
    expect(done.status).toBe(302);
    expect(done.location).toBe("/profile");
    expect(done.setCookies.some((c) => c.startsWith("jumbe_device="))).toBe(true);
    expect(done.setCookies.find((c) => c.startsWith("jumbe_email_code="))).toMatch(/Max-Age=0/);
    const me = await run(apiMe, getRequest("/api/auth/me", { cookie: cookieHeader(done.setCookies) }));
    expect(me.data.user.id).toBe(user.id);
    // The code works once.
    const again = await post({ otp: code }, cookie, ip);
    expect(again.status).toBe(400);
    expect(again.data.result.error.otp).toEqual([CODE_MESSAGES.invalid]);
  });

  it("refuses wrong codes with a limit: after five, not even the right code works until a new one is sent", async () => {
    const { email, password } = await createVerifiedUser();
    await attack(email, MANY, "10.2.0.");
    const ip = "198.51.100.91";
    const cookie = await reachCodeStep(email, password, ip);
    const code = await latestCodeFor(email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 4; i++) expect((await post({ otp: wrong }, cookie, ip)).data.result.error.otp).toEqual([CODE_MESSAGES.invalid]);
    const fifth = await post({ otp: wrong }, cookie, ip);
    expect(fifth.status).toBe(400);
    expect(fifth.data.result.error.otp).toEqual([CODE_MESSAGES.locked]);
    const right = await post({ otp: code }, cookie, ip);
    expect(right.status).toBe(400);
    expect(right.data.result.error.otp).toEqual([CODE_MESSAGES.locked]);
    expect(right.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);

    // "Send a new code" works without JavaScript; within 30 s of the last mail it says how long to wait.
    const resend = await post({ intent: "resend" }, cookie, ip);
    expect(resend.status).toBe(429);
    expect(resend.data.toast.message).toMatch(/^Please wait \d+ seconds before requesting a new code\.$/);
    expect(await latestCodeFor(email)).toBe(code);
  });

  it("expires with the code: ten minutes later the browser is sent back to the password", async () => {
    const { email, password } = await createVerifiedUser();
    await attack(email, MANY, "10.3.0.");
    const ip = "198.51.100.92";
    const cookie = await reachCodeStep(email, password, ip);
    const code = await latestCodeFor(email);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60_000 + 1000 });
    const late = await post({ otp: code }, cookie, ip);
    expect(late.status).toBe(302);
    expect(late.location).toBe("/login");
    expect(late.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
    expect((await run(emailCodeLoader, getRequest("/login/email-code", { cookie }), { ip })).location).toBe("/login");
    // Without the cookie the page sends anyone to the password.
    expect((await run(emailCodeLoader, getRequest("/login/email-code"), { ip })).location).toBe("/login");
  });

  it("works through the JSON API: 202 with requiresEmailCode, then the code", async () => {
    const { email, password } = await createVerifiedUser();
    await attack(email, MANY, "10.4.0.");
    const ip = "198.51.100.93";
    const first = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }), { ip });
    expectEmailCodeStep(first);
    const cookie = cookieHeader(first.setCookies);
    const code = await latestCodeFor(email);
    const bad = await run(apiEmailCode, jsonRequest("/api/auth/email-code", { otp: "12" }, { cookie }), { ip });
    expect(bad.status).toBe(400);
    const done = await run(apiEmailCode, jsonRequest("/api/auth/email-code", { otp: code }, { cookie }), { ip });
    expect(done.status).toBe(200);
    expect(done.data.user.email).toBe(email);
    const none = await run(apiEmailCode, jsonRequest("/api/auth/email-code", { otp: code }), { ip });
    expect(none.status).toBe(401);
    expect(none.data).toEqual({ message: EMAIL_CODE_MESSAGES.timedOut, restart: true });
  });

  it("still asks for the authenticator's code after the e-mailed one, when two-factor sign-in is on", async () => {
    const { email, password } = await createVerifiedUser();
    const cookie = await signedInCookie(email, password);
    await run(securityAction, formRequest("/settings/security", { intent: "2fa-start" }, { cookie }));
    const secret: string = (await run(securityLoader, getRequest("/settings/security", { cookie }))).data.twoFactor.setup.secret;
    const confirm = { intent: "2fa-confirm", code: codeForStep(secret, stepAt(Date.now())) };
    expect((await run(securityAction, formRequest("/settings/security", confirm, { cookie }))).status).toBe(200);

    await attack(email, MANY, "10.5.0.");
    const ip = "198.51.100.94";
    const pending = await reachCodeStep(email, password, ip);
    const afterMail = await post({ otp: await latestCodeFor(email) }, pending, ip);
    expect(afterMail.status).toBe(302);
    expect(afterMail.location).toBe("/login/two-factor");
    expect(afterMail.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + TOTP_STEP_SECONDS * 1000 });
    const done = await run(
      twoFactorAction,
      formRequest("/login/two-factor", { code: codeForStep(secret, stepAt(Date.now())) }, { cookie: cookieHeader(afterMail.setCookies) }),
      { ip },
    );
    expect(done.status).toBe(302);
    expect(done.location).toBe("/dashboard");
    expect(done.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(true);
  });
});
