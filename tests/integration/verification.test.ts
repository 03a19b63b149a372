import { afterEach, describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, mailOutbox, organizations, users } from "~/.server/infrastructure/db/schema";
import { createSignup } from "~/.server/domains/auth/signup";
import { action as verifyAction, loader as verifyLoader } from "~/routes/auth/verify-otp";
import { action as apiVerify } from "~/routes/api/auth.verify-otp";
import { action as apiResend } from "~/routes/api/auth.resend-otp";
import { cookieHeader, formRequest, getRequest, jsonRequest, run } from "../support/http";
import { META, latestCodeFor, uniqueEmail } from "../support/accounts";

async function signUp(email = uniqueEmail()) {
  await createSignup({ firstName: "Baraka", lastName: "Kiprono", email, password: "Karibu#2026" }, META);
  return email;
}

function wrong(code: string) {
  return code === "000000" ? "111111" : "000000";
}

async function userByEmail(email: string) {
  const [row] = await db().select().from(users).where(eq(users.email, email));
  return row!;
}

// Rate-limit windows run on the database clock; moving a window's start back is how a test lets time pass.
async function ageResendWindow(seconds: number) {
  await db().execute(
    sql`update rate_limits set window_start = window_start - ${`${seconds} seconds`}::interval where key like 'code:resend:%'`,
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe("e-mail verification", () => {
  it("verifies with the right code from the six boxes, activates the organisation and logs it", async () => {
    const email = await signUp();
    const code = await latestCodeFor(email);
    const res = await run(verifyAction, formRequest("/verify-otp", { email, intent: "verify", otp: code.split("") }));
    expect(res.status).toBe(200);
    expect(res.data.success).toBe("Email verified successfully! Redirecting...");
    const user = await userByEmail(email);
    expect(user.isVerified).toBe(true);
    const [org] = await db().select().from(organizations).where(eq(organizations.id, user.organizationId));
    expect(org!.status).toBe("active");
    const logs = await db().select().from(activityLogs).where(eq(activityLogs.userId, user.id));
    expect(logs.map((l) => l.action)).toContain("Email verified");
  });

  it("asks for all six digits with the spec's message", async () => {
    const email = await signUp();
    const res = await run(verifyAction, formRequest("/verify-otp", { email, intent: "verify", otp: ["1", "2", "3"] }));
    expect(res.status).toBe(400);
    expect(res.data.result.error.otp).toEqual(["Please enter the complete 6-digit OTP code"]);
  });

  it("kills a code after five wrong tries, even for the right code", async () => {
    const email = await signUp();
    const code = await latestCodeFor(email);
    for (let i = 0; i < 4; i++) {
      const res = await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: wrong(code) }));
      expect(res.data).toEqual({ message: "Invalid verification code. Please try again.", isVerified: false });
    }
    const fifth = await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: wrong(code) }));
    expect(fifth.data.message).toBe("Too many wrong attempts. Please request a new code.");
    const right = await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: code }));
    expect(right.status).toBe(400);
    expect(right.data.message).toBe("Too many wrong attempts. Please request a new code.");
    expect((await userByEmail(email)).isVerified).toBe(false);
  });

  it("expires a code after 10 minutes", async () => {
    const email = await signUp();
    const code = await latestCodeFor(email);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60 * 1000 + 1000 });
    const res = await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: code }));
    expect(res.status).toBe(400);
    expect(res.data.message).toBe("This code has expired. Please request a new one.");
    expect((await userByEmail(email)).isVerified).toBe(false);
  });

  it("accepts a code just inside 10 minutes, once only", async () => {
    const email = await signUp();
    const code = await latestCodeFor(email);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 9 * 60 * 1000 });
    expect((await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: code }))).data).toEqual({
      isVerified: true,
      message: "Email verified successfully! Redirecting...",
    });
    expect((await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: code }))).status).toBe(400);
  });

  it("refuses a resend within 30 s of the last send, on the server, and allows it after", async () => {
    const email = await signUp();
    const first = await latestCodeFor(email);
    const early = await run(apiResend, jsonRequest("/api/auth/resend-otp", { email }));
    expect(early.status).toBe(429);
    expect(early.data.message).toMatch(/^Please wait \d+ seconds before requesting a new code\.$/);
    expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await latestCodeFor(email)).toBe(first);

    await ageResendWindow(31);
    const later = await run(apiResend, jsonRequest("/api/auth/resend-otp", { email }));
    expect(later.status).toBe(200);
    expect(later.data).toEqual({ message: "New OTP sent to your email" });
    const second = await latestCodeFor(email);
    // The new code replaces the old one.
    if (second !== first) expect((await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: first }))).status).toBe(400);
    expect((await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: second }))).data.isVerified).toBe(true);
  });

  it("gives an unknown address the same answer and sends nothing", async () => {
    const res = await run(apiResend, jsonRequest("/api/auth/resend-otp", { email: "nobody@example.co.ke" }));
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ message: "New OTP sent to your email" });
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "nobody@example.co.ke"));
    expect(mails).toHaveLength(0);
  });

  it("limits code checks per account", async () => {
    const email = await signUp();
    let last;
    for (let i = 0; i < 16; i++)
      last = await run(apiVerify, jsonRequest("/api/auth/verify-otp", { email, otp: "123456" }), { ip: `192.0.2.${i + 1}` });
    expect(last!.status).toBe(429);
    expect(last!.data.message).toMatch(/^Too many attempts\./);
  });

  it("shows the verify page's countdown from the server's window", async () => {
    const email = await signUp();
    const { signedCookies } = await import("~/.server/infrastructure/http/cookies");
    const cookie = cookieHeader([await signedCookies().otpEmail.serialize(email)]);
    const page = await run(verifyLoader, getRequest("/verify-otp", { cookie }));
    expect(page.data.email).toBe(email);
    expect(page.data.resendIn).toBeGreaterThan(25);
    expect(page.data.resendIn).toBeLessThanOrEqual(30);
  });
});
