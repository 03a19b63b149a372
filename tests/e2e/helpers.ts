import { randomBytes, randomInt } from "node:crypto";
import { expect, type APIRequestContext, type Browser, type Locator, type Page } from "@playwright/test";
import { e2eServer } from "./server-env";

// This run's server (playwright.config.ts picks a free port once and hands it down in the environment).
export const BASE_URL = e2eServer().baseUrl;

/** The seeded demo accounts (sandbox mode). */
export const ADMIN = { email: "admin@jumbe.demo", password: "JumbeAdmin#2026" } as const;
export const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" } as const;

/** Texts the product shows word for word (product spec sections 5 and 8). */
export const TEXT = {
  signupSuccess: "Registration Successful! Please check your email for the verification OTP.",
  verifySuccess: "Email verified successfully! Redirecting...",
  loginSuccess: "Login successful!",
  emailRequired: "Email is required",
  emailInvalid: "Email is invalid",
  passwordRequired: "Password is required",
  signinPasswordMin: "Password must be at least 6 characters",
  requiredFields: "Please fill in all required fields.",
  signupMismatch: "Passwords do not match.",
  terms: "You must agree to the terms and conditions.",
  otpIncomplete: "Please enter the complete 6-digit OTP code",
  invalidCredentials: "Invalid email or password.",
  currentWrong: "Current password is incorrect",
  passwordsMismatch: "Passwords do not match",
  passwordChanged: "Password changed successfully",
  resetDone: "Your password has been reset. Please sign in with your new password.",
} as const;

/** A random client address in 10.0.0.0/8, one per test, sent as X-Forwarded-For. */
export function randomIp() {
  return `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/** An address no other test (or earlier run) uses. */
export function uniqueEmail(prefix = "user") {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}@e2e.jumbe.test`;
}

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  sentAt: string;
}

export type CodeKind = "verification" | "reset" | "any";

const SUBJECTS: Record<CodeKind, RegExp> = {
  verification: /verification code/i,
  reset: /password reset code/i,
  // Any mail that carries a code (not, say, a notification of a sign-in from a new device).
  any: /: \d{6}$/,
};

/**
 * The newest 6-digit code e-mailed to `email` (sandbox outbox, newest first), polled until it arrives.
 * `except` skips codes already used, `since` skips mail sent before that moment; `base` is the
 * origin of a spec's own server (the run's shared server by default).
 */
export async function latestCode(
  request: APIRequestContext,
  email: string,
  options: { kind?: CodeKind; except?: string[]; since?: Date; base?: string } = {},
) {
  const { kind = "any", except = [], since, base = "" } = options;
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const response = await request.get(`${base}/sandbox/mail.json`);
        expect(response.ok()).toBeTruthy();
        const mails = (await response.json()) as OutboxMail[];
        for (const mail of mails) {
          if (mail.to.toLowerCase() !== email.toLowerCase() || !SUBJECTS[kind].test(mail.subject)) continue;
          if (since && new Date(mail.sentAt).getTime() < since.getTime() - 1000) continue;
          const code = /\b(\d{6})\b/.exec(mail.subject)?.[1];
          expect(code, `a 6-digit code in "${mail.subject}"`).toBeTruthy();
          expect(mail.text, "the code appears in the mail body too").toContain(code!);
          if (except.includes(code!)) continue;
          found = code;
          return code;
        }
        return undefined;
      },
      { message: `a ${kind} code mailed to ${email}`, timeout: 30_000, intervals: [100, 250, 500] },
    )
    .toMatch(/^\d{6}$/);
  return found!;
}

/** Every mail the sandbox outbox holds for `email`, newest first (at `base`, a spec's own server). */
export async function mailsTo(request: APIRequestContext, email: string, base = "") {
  const response = await request.get(`${base}/sandbox/mail.json`);
  expect(response.ok()).toBeTruthy();
  return ((await response.json()) as OutboxMail[]).filter((m) => m.to.toLowerCase() === email.toLowerCase());
}

/** The mails to `email`, newest first, once there are at least `count`: mail sent by a job (invitations) arrives a moment after the form's answer. */
export async function awaitMailsTo(request: APIRequestContext, email: string, count = 1, base = "") {
  let mails: OutboxMail[] = [];
  await expect
    .poll(async () => (mails = await mailsTo(request, email, base)).length, {
      message: `${count} mail(s) to ${email}`,
      timeout: 30_000,
      intervals: [100, 250, 500],
    })
    .toBeGreaterThanOrEqual(count);
  return mails;
}

export interface TestUser {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  businessName: string;
}

export function newUser(overrides: Partial<TestUser> = {}): TestUser {
  const tag = randomBytes(3).toString("hex");
  return {
    email: uniqueEmail(),
    password: `Karibu#${tag}2026`,
    firstName: "Wanjiku",
    lastName: `Kamau${tag}`,
    businessName: `Duka ${tag} Ltd`,
    ...overrides,
  };
}

const JSON_HEADERS = { "Content-Type": "application/json", Origin: BASE_URL };

/** Signs a user up and verifies the e-mail through the JSON API (spec section 7), so UI tests can start signed out with a ready account. */
export async function signUpAndVerifyViaApi(request: APIRequestContext, overrides: Partial<TestUser> = {}) {
  const user = newUser(overrides);
  const signup = await request.post("/api/auth/signup", {
    headers: JSON_HEADERS,
    data: {
      firstName: user.firstName,
      lastName: user.lastName,
      businessName: user.businessName,
      email: user.email,
      password: user.password,
      usertype: "individual",
      agreedToTerms: true,
    },
  });
  expect(signup.status(), await signup.text()).toBe(201);
  const otp = await latestCode(request, user.email, { kind: "verification" });
  const verify = await request.post("/api/auth/verify-otp", { headers: JSON_HEADERS, data: { email: user.email, otp } });
  expect(verify.status(), await verify.text()).toBe(200);
  expect(await verify.json()).toMatchObject({ isVerified: true, message: TEXT.verifySuccess });
  return user;
}

/** The six boxes of a code. */
export function otpBoxes(page: Page) {
  return page.getByRole("group", { name: "6-digit code" }).locator('input[name="otp"]');
}

/** Fills the six boxes one by one (works with scripts on or off). */
export async function fillOtpBoxes(page: Page, code: string) {
  const boxes = otpBoxes(page);
  await expect(boxes).toHaveCount(6);
  for (let i = 0; i < code.length; i++) await boxes.nth(i).fill(code[i]!);
}

/**
 * A form field by its label. Required fields' labels end with an aria-hidden "*", which is part of the
 * label's text but not of the accessible name, so match the text with or without it.
 */
export function field(scope: Page | Locator, label: string) {
  return scope.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\*?$`));
}

/** Signs `user` up through the form (at `base`, for a spec's own server) and waits for the verify page. */
export async function signUpViaForm(page: Page, user: TestUser, { base = "", businessName = false } = {}) {
  await page.goto(`${base}/signup`);
  await field(page, "First name").fill(user.firstName);
  await field(page, "Last name").fill(user.lastName);
  if (businessName) await field(page, "Business/Organization name (optional)").fill(user.businessName);
  await field(page, "Email").fill(user.email);
  await field(page, "Password").fill(user.password);
  await field(page, "Confirm password").fill(user.password);
  await page.getByRole("checkbox", { name: /I agree to the Terms of Service/ }).check();
  await page.getByRole("button", { name: "Create Account" }).click();
  await page.waitForURL("**/verify-otp", { timeout: 30_000 });
}

/** Signs in through the form (opening `goto` first unless it is false); waits until the page has left the sign-in screen. */
export async function signInViaForm(
  page: Page,
  email: string,
  password: string,
  { goto = "/login" as string | false, timeout = 30_000 } = {},
) {
  if (goto !== false) await page.goto(goto);
  await field(page, "Email").fill(email);
  await field(page, "Password").fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await page.waitForURL((url) => !/^\/(login|signin)$/.test(url.pathname), { timeout });
}

/**
 * Signs the page's browser in over HTTP, posting what the sign-in form posts, then opens `to` (by
 * default where sign-in sends the account: the dashboard, the console, the code page). For tests
 * whose subject comes after signing in: it spares the sign-in page and the page it leads to, about
 * a sixth of a second of the browser's work each time. The form itself is tested where it is the
 * subject (account-flow, two-factor, the sign-in limits, the console's `from`): those use signInViaForm.
 */
export async function signIn(page: Page, email: string, password: string, { to, base = BASE_URL }: { to?: string; base?: string } = {}) {
  const answer = await page.request.post(`${base}/login`, { form: { email, password }, headers: { Origin: base }, maxRedirects: 0 });
  const location = answer.headers()["location"];
  if (answer.status() !== 302 || !location)
    throw new Error(`Signing in ${email} answered ${answer.status()}: ${(await answer.text()).slice(0, 300)}`);
  await page.goto(to ? `${to.startsWith("/") ? base : ""}${to}` : new URL(location, base).toString());
}

/** The user menu in the top bar (a native <details>). */
export function userMenu(page: Page) {
  return page.locator("details").filter({ has: page.locator('summary[aria-label="User menu"]') });
}

/** A random Kenyan mobile number as people write it (+254 7xx xxx xxx). */
export const kenyanNumber = () => `+254 7${randomInt(10, 99)} ${randomInt(100, 999)} ${randomInt(100, 999)}`;

/** In the Meta sandbox's Embedded Signup dialog: create a new test business with `number`, named `name`. */
export async function fillNewBusiness(dialog: Page, number: string, name: string) {
  await dialog.getByLabel("Create a new test business").check();
  await dialog.getByLabel("Business name").fill(name);
  await dialog.getByLabel("Display name").fill(name);
  await dialog.getByLabel("Phone number").fill(number);
}

/**
 * On /whatsapp: "Connect WhatsApp Business", then the sandbox's dialog (a popup with JavaScript, the same
 * page without) creates a new test business with `number` and finishes. The caller checks the callback's result.
 */
export async function connectThroughDialog(page: Page, javaScriptEnabled: boolean, number: string, name: string) {
  const dialog = await openSignupDialog(page, javaScriptEnabled);
  await fillNewBusiness(dialog, number, name);
  await dialog.getByRole("button", { name: "Finish" }).click();
}

/**
 * On /whatsapp: "Connect WhatsApp Business" opens the sandbox's dialog, a popup with JavaScript (once the
 * page's script has wired the control: a click before that follows the plain link) or the page itself without.
 */
export async function openSignupDialog(page: Page, javaScriptEnabled: boolean): Promise<Page> {
  const connect = page.getByTestId("connect-whatsapp");
  if (!javaScriptEnabled) {
    await connect.click();
    await expect(page).toHaveURL(/\/sandbox\/meta\/dialog\/oauth/);
    return page;
  }
  await expect(page.locator("[data-embedded-signup]")).toHaveAttribute("data-ready", "true");
  const [popup] = await Promise.all([page.waitForEvent("popup"), connect.click()]);
  await popup.waitForLoadState();
  return popup;
}

/**
 * The callback page says the signup is complete, then takes the browser on to /whatsapp by itself
 * after 2 s. Waits for both, so the test's next navigation is not cut short by that hop.
 */
export async function expectSignupCompleteThenSetup(page: Page) {
  await expect(page.getByTestId("callback-result")).toHaveAttribute("data-state", "success");
  await expect(page).toHaveURL(/\/whatsapp$/, { timeout: 30_000 });
}

/** Invites an agent to the owner's organisation (signed in on `page`) and signs them in, in a browser context of their own. */
export async function invitedAgent(page: Page, request: APIRequestContext, browser: Browser, javaScriptEnabled: boolean) {
  const email = uniqueEmail("agent");
  await page.goto("/settings/team");
  await field(page, "E-mail").fill(email);
  await field(page, "Role").selectOption("agent");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${email}.`)).toBeVisible();
  const [mail] = await awaitMailsTo(request, email);
  const link = mail!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0];
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  const agent = await context.newPage();
  await agent.goto(new URL(link).pathname);
  await field(agent, "First name").fill("Brian");
  await field(agent, "Last name").fill("Otieno");
  await field(agent, "New password").fill("Agent#Pass2026");
  await field(agent, "Confirm password").fill("Agent#Pass2026");
  await agent.getByRole("button", { name: "Join the team" }).click();
  await expect(agent).toHaveURL(/\/dashboard$/);
  return { context, agent, name: "Brian Otieno" };
}
