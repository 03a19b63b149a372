import { afterEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { base32Encode, codeForStep, matchingStep, stepAt, TOTP_STEP_SECONDS } from "~/.server/domains/auth/two-factor/totp";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { CHALLENGE_COOKIE } from "~/.server/domains/auth/two-factor/challenge";
import { action as loginAction } from "~/routes/auth/login";
import { action as twoFactorAction, loader as twoFactorLoader } from "~/routes/auth/two-factor";
import { action as securityAction, loader as securityLoader } from "~/routes/app/settings/security";
import { loader as dashboardLoader } from "~/routes/app/dashboard";
import { action as apiSignin } from "~/routes/api/auth.signin";
import { action as apiTwoFactor } from "~/routes/api/auth.two-factor";
import { loader as apiMe } from "~/routes/api/auth.me";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { cookieHeader, formRequest, getRequest, jsonRequest, run } from "../support/http";

// Issue 15: two-factor sign-in (TOTP, RFC 6238), recovery codes, and "require it for everyone".

const STEP_MS = TOTP_STEP_SECONDS * 1000;

afterEach(() => {
  vi.useRealTimers();
});

/** Sets up two-factor sign-in through the Security page as a member would; answers the secret and the recovery codes. */
async function turnOn(cookie: string) {
  expect((await run(securityAction, formRequest("/settings/security", { intent: "2fa-start" }, { cookie }))).status).toBe(302);
  const page = await run(securityLoader, getRequest("/settings/security", { cookie }));
  const secret: string = page.data.twoFactor.setup.secret;
  expect(page.data.twoFactor.setup.qr).toMatch(/^<svg[^>]+viewBox="0 0 \d+ \d+"/);
  const confirmed = await run(
    securityAction,
    formRequest("/settings/security", { intent: "2fa-confirm", code: codeForStep(secret, stepAt(Date.now())) }, { cookie }),
  );
  expect(confirmed.status).toBe(200);
  const recoveryCodes: string[] = confirmed.data.recoveryCodes;
  return { secret, recoveryCodes };
}

/** The password step of the sign-in form: answers the challenge cookie (and checks no session came with it). */
async function passwordStep(email: string, password: string) {
  const res = await run(loginAction, formRequest("/login", { email, password }));
  expect(res.status).toBe(302);
  expect(res.location).toBe("/login/two-factor");
  expect(res.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(false);
  return cookieHeader(res.setCookies);
}

async function codeStep(challenge: string, code: string) {
  return run(twoFactorAction, formRequest("/login/two-factor", { code }, { cookie: challenge }));
}

describe("TOTP (RFC 6238)", () => {
  it("matches the RFC's SHA-1 test vectors (6-digit truncations) and accepts one step of clock skew, not two", () => {
    const secret = base32Encode(Buffer.from("12345678901234567890"));
    expect(codeForStep(secret, Math.floor(59 / 30))).toBe("287082");
    expect(codeForStep(secret, Math.floor(1111111109 / 30))).toBe("081804");
    expect(codeForStep(secret, Math.floor(1234567890 / 30))).toBe("005924");
    expect(codeForStep(secret, Math.floor(2000000000 / 30))).toBe("279037");
    const now = 1_800_000_000_000;
    const step = stepAt(now);
    expect(matchingStep(secret, codeForStep(secret, step - 1), now)).toBe(step - 1);
    expect(matchingStep(secret, codeForStep(secret, step + 1), now)).toBe(step + 1);
    expect(matchingStep(secret, codeForStep(secret, step - 2), now)).toBeNull();
    expect(matchingStep(secret, codeForStep(secret, step + 2), now)).toBeNull();
    expect(matchingStep(secret, "12345", now)).toBeNull();
  });
});

describe("two-factor sign-in", () => {
  it("is set up with a code from the app: a wrong code changes nothing; the right one turns it on with ten hashed recovery codes", async () => {
    const { email, password, user } = await createVerifiedUser();
    const cookie = await signedInCookie(email, password);
    await run(securityAction, formRequest("/settings/security", { intent: "2fa-start" }, { cookie }));
    const page = await run(securityLoader, getRequest("/settings/security", { cookie }));
    const secret: string = page.data.twoFactor.setup.secret;
    const [stored] = await rawQuery<{ totp_secret: string }>(`select totp_secret from users where id = $1`, [user.id]);
    expect(stored!.totp_secret).not.toContain(secret); // sealed, not in the clear

    const wrong = codeForStep(secret, stepAt(Date.now()) + 5);
    const refused = await run(securityAction, formRequest("/settings/security", { intent: "2fa-confirm", code: wrong }, { cookie }));
    expect(refused.status).toBe(400);
    expect(refused.data.result.error.code).toEqual([TWO_FACTOR_MESSAGES.wrongCode]);
    const shaped = await run(securityAction, formRequest("/settings/security", { intent: "2fa-confirm", code: "12ab" }, { cookie }));
    expect(shaped.status).toBe(400);
    expect((await rawQuery(`select 1 from users where id = $1 and two_factor_enabled_at is null`, [user.id])).length).toBe(1);

    const ok = await run(
      securityAction,
      formRequest("/settings/security", { intent: "2fa-confirm", code: codeForStep(secret, stepAt(Date.now())) }, { cookie }),
    );
    expect(ok.status).toBe(200);
    expect(ok.data.recoveryCodes).toHaveLength(10);
    expect(new Set(ok.data.recoveryCodes).size).toBe(10);
    for (const code of ok.data.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const hashes = await rawQuery<{ code_hash: string }>(`select code_hash from recovery_codes where user_id = $1`, [user.id]);
    expect(hashes).toHaveLength(10);
    expect(hashes.map((h) => h.code_hash)).not.toContain(ok.data.recoveryCodes[0]);
    const after = await run(securityLoader, getRequest("/settings/security", { cookie }));
    expect(after.data.twoFactor).toMatchObject({ on: true, recoveryCodesLeft: 10, setup: null });
    const log = await rawQuery<{ action: string }>(`select action from activity_logs where user_id = $1 and type = 'security'`, [user.id]);
    expect(log.map((l) => l.action)).toContain("Two-factor sign-in turned on");
  });

  it("asks for the code after the password; each code works once, one step of skew is accepted, and the session opens only then", async () => {
    const { email, password, user } = await createVerifiedUser();
    const { secret } = await turnOn(await signedInCookie(email, password));
    // The set-up used this step's code: the same code cannot sign in.
    const challenge = await passwordStep(email, password);
    expect(challenge).toContain(`${CHALLENGE_COOKIE}=`);
    expect((await run(twoFactorLoader, getRequest("/login/two-factor", { cookie: challenge }))).status).toBe(200);
    const reused = await codeStep(challenge, codeForStep(secret, stepAt(Date.now())));
    expect(reused.status).toBe(400);
    expect(reused.data.result.error.code).toEqual([TWO_FACTOR_MESSAGES.wrongCode]);

    // Half a minute later, the next step's code works; a phone 30 s behind (the step before) would be accepted too.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + STEP_MS });
    const signedIn = await codeStep(challenge, codeForStep(secret, stepAt(Date.now())));
    expect(signedIn.status).toBe(302);
    expect(signedIn.location).toBe("/dashboard");
    const session = signedIn.setCookies.find((c) => c.startsWith("jumbe_session="));
    expect(session).toBeTruthy();
    expect(signedIn.setCookies.some((c) => c.startsWith(`${CHALLENGE_COOKIE}=;`))).toBe(true);
    const me = await run(apiMe, getRequest("/api/auth/me", { cookie: cookieHeader(signedIn.setCookies) }));
    expect(me.data.user.email).toBe(email);
    // The challenge was answered once: posting to it again sends the browser back to the password.
    const again = await codeStep(challenge, codeForStep(secret, stepAt(Date.now()) + 1));
    expect(again.status).toBe(302);
    expect(again.location).toBe("/login");

    vi.setSystemTime(Date.now() + 2 * STEP_MS);
    const skewed = await passwordStep(email, password);
    expect((await codeStep(skewed, codeForStep(secret, stepAt(Date.now()) - 1))).status).toBe(302);
    vi.setSystemTime(Date.now() + 2 * STEP_MS);
    const tooOld = await passwordStep(email, password);
    expect((await codeStep(tooOld, codeForStep(secret, stepAt(Date.now()) - 2))).status).toBe(400);
    const log = await rawQuery<{ details: string }>(
      `select details from activity_logs where user_id = $1 and action = 'Signed in' order by id desc limit 1`,
      [user.id],
    );
    expect(log[0]!.details).toContain("two-factor by authenticator app");
  });

  it("signs in with a recovery code once, and says how many are left", async () => {
    const { email, password } = await createVerifiedUser();
    const { recoveryCodes } = await turnOn(await signedInCookie(email, password));
    const code = recoveryCodes[3]!;
    const first = await codeStep(await passwordStep(email, password), code.toUpperCase().replace("-", " "));
    expect(first.status).toBe(302);
    const toast = first.setCookies.find((c) => c.startsWith("jumbe_toast="));
    expect(toast).toBeTruthy();
    const second = await codeStep(await passwordStep(email, password), code);
    expect(second.status).toBe(400);
    const cookie = cookieHeader(first.setCookies);
    expect((await run(securityLoader, getRequest("/settings/security", { cookie }))).data.twoFactor.recoveryCodesLeft).toBe(9);
  });

  it("ends the challenge after five wrong codes or five minutes: the password is asked again", async () => {
    const { email, password } = await createVerifiedUser();
    const { secret } = await turnOn(await signedInCookie(email, password));
    const challenge = await passwordStep(email, password);
    for (let i = 0; i < 4; i++) expect((await codeStep(challenge, "000000")).status).toBe(400);
    const fifth = await codeStep(challenge, "000000");
    expect(fifth.status).toBe(302);
    expect(fifth.location).toBe("/login");
    // Gone, even with the right code now.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + STEP_MS });
    expect((await codeStep(challenge, codeForStep(secret, stepAt(Date.now())))).location).toBe("/login");

    const slow = await passwordStep(email, password);
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1000);
    expect((await run(twoFactorLoader, getRequest("/login/two-factor", { cookie: slow }))).location).toBe("/login");
    expect((await codeStep(slow, codeForStep(secret, stepAt(Date.now())))).location).toBe("/login");
    // Without any challenge cookie, the page sends the visitor to the password.
    expect((await run(twoFactorLoader, getRequest("/login/two-factor"))).location).toBe("/login");
  });

  it("refuses wrong codes from one address, and only there: the owner's code from another address signs in", async () => {
    const { email, password } = await createVerifiedUser();
    const { secret } = await turnOn(await signedInCookie(email, password));
    const stranger = "203.0.113.81";
    const passwordFrom = async (ip: string) => {
      const res = await run(loginAction, formRequest("/login", { email, password }), { ip });
      expect(res.location).toBe("/login/two-factor");
      return cookieHeader(res.setCookies);
    };
    const codeFrom = (ip: string, challenge: string, code: string) =>
      run(twoFactorAction, formRequest("/login/two-factor", { code }, { cookie: challenge }), { ip });
    const wrong = codeForStep(secret, stepAt(Date.now()) + 5);
    // Someone with the password tries codes from one address: three challenges of five wrong codes, as many as one address may.
    for (let round = 0; round < 3; round++) {
      const challenge = await passwordFrom(stranger);
      for (let i = 0; i < 5; i++) expect((await codeFrom(stranger, challenge, wrong)).status).toBe(i < 4 ? 400 : 302);
    }
    const refused = await codeFrom(stranger, await passwordFrom(stranger), wrong);
    expect(refused.status).toBe(429);
    expect(refused.data.result.error.code).toEqual([expect.stringMatching(/^Too many attempts\. Please try again in \d+ minutes?\.$/)]);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + STEP_MS });
    const owner = "198.51.100.82";
    const done = await codeFrom(owner, await passwordFrom(owner), codeForStep(secret, stepAt(Date.now())));
    expect(done.status).toBe(302);
    expect(done.location).toBe("/dashboard");
    expect(done.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(true);
  });

  it("after more wrong codes than one address may try, a new browser must also enter a code from the e-mail", async () => {
    const { email, password } = await createVerifiedUser();
    const { secret } = await turnOn(await signedInCookie(email, password));
    const wrong = codeForStep(secret, stepAt(Date.now()) + 5);
    const guessFrom = async (ip: string, codes: number) => {
      const res = await run(loginAction, formRequest("/login", { email, password }), { ip });
      expect(res.location).toBe("/login/two-factor");
      for (let i = 0; i < codes; i++)
        await run(twoFactorAction, formRequest("/login/two-factor", { code: wrong }, { cookie: cookieHeader(res.setCookies) }), { ip });
    };
    for (let round = 0; round < 3; round++) await guessFrom("203.0.113.83", 5);
    await guessFrom("203.0.113.84", 1);
    const next = await run(loginAction, formRequest("/login", { email, password }), { ip: "198.51.100.85" });
    expect(next.status).toBe(302);
    expect(next.location).toBe("/login/email-code");
    expect(next.setCookies.some((c) => c.startsWith(`${CHALLENGE_COOKIE}=`))).toBe(false);
  });

  it("works through the JSON API: 202 with requiresTwoFactor, then the code", async () => {
    const { email, password } = await createVerifiedUser();
    const { secret } = await turnOn(await signedInCookie(email, password));
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + STEP_MS });
    const first = await run(apiSignin, jsonRequest("/api/auth/signin", { email, password }));
    expect(first.status).toBe(202);
    expect(first.data.requiresTwoFactor).toBe(true);
    const challenge = cookieHeader(first.setCookies);
    const bad = await run(apiTwoFactor, jsonRequest("/api/auth/two-factor", { code: "abc" }, { cookie: challenge }));
    expect(bad.status).toBe(400);
    const done = await run(
      apiTwoFactor,
      jsonRequest("/api/auth/two-factor", { code: codeForStep(secret, stepAt(Date.now())) }, { cookie: challenge }),
    );
    expect(done.status).toBe(200);
    expect(done.data.user.email).toBe(email);
  });

  it("is turned off only with the password and a code, and not while the organisation requires it", async () => {
    const { email, password, user } = await createVerifiedUser();
    const cookie = await signedInCookie(email, password);
    const { secret } = await turnOn(cookie);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + STEP_MS });
    const code = () => codeForStep(secret, stepAt(Date.now()));
    const wrongPassword = await run(
      securityAction,
      formRequest("/settings/security", { intent: "2fa-off", password: "Wrong#Pass1", code: code() }, { cookie }),
    );
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.data.result.error.password).toEqual([TWO_FACTOR_MESSAGES.wrongPassword]);
    const wrongCode = await run(
      securityAction,
      formRequest("/settings/security", { intent: "2fa-off", password, code: "000000" }, { cookie }),
    );
    expect(wrongCode.status).toBe(400);
    expect(wrongCode.data.result.error.code).toEqual([TWO_FACTOR_MESSAGES.wrongCode]);

    expect(
      (await run(securityAction, formRequest("/settings/security", { intent: "2fa-require", required: "on" }, { cookie }))).status,
    ).toBe(302);
    const required = await run(
      securityAction,
      formRequest("/settings/security", { intent: "2fa-off", password, code: code() }, { cookie }),
    );
    expect(required.status).toBe(403);
    await run(securityAction, formRequest("/settings/security", { intent: "2fa-require", required: "off" }, { cookie }));

    vi.setSystemTime(Date.now() + STEP_MS);
    const off = await run(securityAction, formRequest("/settings/security", { intent: "2fa-off", password, code: code() }, { cookie }));
    expect(off.status).toBe(302);
    const [row] = await rawQuery<{ on: boolean; codes: number }>(
      `select two_factor_enabled_at is not null as on, (select count(*)::int from recovery_codes where user_id = $1) as codes from users where id = $1`,
      [user.id],
    );
    expect(row).toEqual({ on: false, codes: 0 });
    // Signing in is one step again.
    const plain = await run(loginAction, formRequest("/login", { email, password }));
    expect(plain.setCookies.some((c) => c.startsWith("jumbe_session="))).toBe(true);
  });

  it("required for everyone: the owner must have it first; a member without it meets only the Security page until set up", async () => {
    const owner = await createVerifiedUser();
    const ownerCookie = await signedInCookie(owner.email, owner.password);
    const early = await run(
      securityAction,
      formRequest("/settings/security", { intent: "2fa-require", required: "on" }, { cookie: ownerCookie }),
    );
    expect(early.status).toBe(409);
    expect(early.data.toast.message).toBe(TWO_FACTOR_MESSAGES.ownerFirst);
    await turnOn(ownerCookie);

    // A second member of the same organisation, without two-factor.
    const member = await createVerifiedUser();
    await rawQuery(`update users set organization_id = $1, org_role = 'agent' where id = $2`, [owner.organization.id, member.user.id]);
    const memberCookie = await signedInCookie(member.email, member.password);
    const agentTries = await run(
      securityAction,
      formRequest("/settings/security", { intent: "2fa-require", required: "on" }, { cookie: memberCookie }),
    );
    expect(agentTries.status).toBe(403);

    await run(securityAction, formRequest("/settings/security", { intent: "2fa-require", required: "on" }, { cookie: ownerCookie }));
    const dashboard = await run(dashboardLoader, getRequest("/dashboard", { cookie: memberCookie }));
    expect(dashboard.status).toBe(302);
    expect(dashboard.location).toBe("/settings/security");
    const api = await run(apiMe, getRequest("/api/auth/me", { cookie: memberCookie }));
    expect(api.status).toBe(403);
    expect(api.data.message).toBe(TWO_FACTOR_MESSAGES.setUpFirst);
    const page = await run(securityLoader, getRequest("/settings/security", { cookie: memberCookie }));
    expect(page.data.mustSetUp).toBe(true);
    const ownerPage = await run(securityLoader, getRequest("/settings/security", { cookie: ownerCookie }));
    expect(ownerPage.data.enforce).toEqual({ withoutTwoFactor: 1 });

    await turnOn(memberCookie);
    expect((await run(dashboardLoader, getRequest("/dashboard", { cookie: memberCookie }))).status).toBe(200);
  });
});

describe("a sign-in from a new device", () => {
  it("tells the member in the bell, after two-factor too, but not from a known device nor on the first sign-in", async () => {
    const { email, password, user } = await createVerifiedUser();
    const bell = async () =>
      rawQuery<{ title: string }>(`select title from notifications where user_id = $1 and event = 'new_device_sign_in'`, [user.id]);
    const first = await run(
      loginAction,
      formRequest("/login", { email, password }, { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0" }),
    );
    expect(first.status).toBe(302);
    expect(await bell()).toHaveLength(0);
    const device = cookieHeader(first.setCookies.filter((c) => c.startsWith("jumbe_device=")));
    await run(loginAction, formRequest("/login", { email, password }, { cookie: device }));
    expect(await bell()).toHaveLength(0);

    const { secret } = await turnOn(cookieHeader(first.setCookies));
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + STEP_MS });
    const phone = { userAgent: "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile" };
    const challenge = cookieHeader((await run(loginAction, formRequest("/login", { email, password }, phone))).setCookies);
    const done = await run(
      twoFactorAction,
      formRequest("/login/two-factor", { code: codeForStep(secret, stepAt(Date.now())) }, { ...phone, cookie: challenge }),
    );
    expect(done.status).toBe(302);
    expect((await bell()).map((n) => n.title)).toEqual(["New sign-in from Chrome on Android"]);
  });
});
