import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { createServer, type AddressInfo } from "node:net";
import { count, sql } from "drizzle-orm";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { db } from "~/.server/infrastructure/db/client";
import { jobs, mailOutbox } from "~/.server/infrastructure/db/schema";
import { createSignup } from "~/.server/domains/auth/signup";
import { issueCode } from "~/.server/domains/auth/codes";
import { resetPassword } from "~/.server/domains/auth/password-reset";
import { resendSignupCode } from "~/.server/domains/auth/verification";
import { action as signupAction } from "~/routes/auth/signup";
import { action as apiSignup } from "~/routes/api/auth.signup";
import { formRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, META, sendQueuedMail, uniqueEmail } from "../support/accounts";

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
let server: SMTPServer;
let port = 0;

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A port where nothing listens: the mail server is down. */
async function closedPort() {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const free = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return free;
}

function smtpAt(smtpPort: number) {
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: "http://jumbe.test",
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: "Jumbe <no-reply@jumbe.test>",
    }),
  );
}

/** The mail server is back: the queued mail's retries are due now (no waiting out the backoff), and run. */
async function mailServerBack() {
  smtpAt(port);
  await db().execute(sql`update jobs set run_at = now() where finished_at is null and failed_at is null`);
  await sendQueuedMail();
}

describe("SMTP transport", () => {
  it("sends the verification code through a real SMTP server when SMTP_URL is set, not to the outbox", async () => {
    setEnv(
      parseEnv({
        NODE_ENV: "test",
        APP_URL: "http://jumbe.test",
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        MAIL_FROM: "Jumbe <no-reply@jumbe.test>",
      }),
    );
    const email = uniqueEmail("smtp");
    await createSignup({ firstName: "Neema", lastName: "Atieno", email, password: "Karibu#2026" }, META);
    await sendQueuedMail();
    const message = received.find((m) => m.to.includes(email));
    expect(message).toBeDefined();
    expect(message!.from).toBe("no-reply@jumbe.test");
    expect(message!.raw).toMatch(/Subject: Your Jumbe verification code: \d{6}/);
    const [stored] = await db().select({ value: count() }).from(mailOutbox);
    expect(stored!.value).toBe(0);
  });

  it("signs up while the mail server is down: the page and the API succeed, and each code goes out once it is back", async () => {
    smtpAt(await closedPort());
    const email = uniqueEmail("down");
    const page = await run(
      signupAction,
      formRequest("/signup", {
        firstName: "Neema",
        lastName: "Atieno",
        email,
        password: "Karibu#2026",
        confirmPassword: "Karibu#2026",
        agreedToTerms: "on",
      }),
    );
    expect(page.status).toBe(200);
    expect(page.data.success).toBe("Registration Successful! Please check your email for the verification OTP.");
    const apiEmail = uniqueEmail("down-api");
    const api = await run(
      apiSignup,
      jsonRequest("/api/auth/signup", { firstName: "Juma", lastName: "Otieno", email: apiEmail, password: "Karibu#2026" }),
    );
    expect(api.status).toBe(201);
    // Tried while it was down: the jobs wait for a retry, nothing lost.
    await sendQueuedMail();
    const waiting = await db().select().from(jobs);
    expect(waiting.map((job) => ({ attempts: job.attempts, finished: job.finishedAt !== null, failed: job.failedAt !== null }))).toEqual([
      { attempts: 1, finished: false, failed: false },
      { attempts: 1, finished: false, failed: false },
    ]);
    expect(received.filter((m) => m.to.includes(email) || m.to.includes(apiEmail))).toHaveLength(0);

    await mailServerBack();
    for (const to of [email, apiEmail]) {
      const mails = received.filter((m) => m.to.includes(to));
      expect(mails).toHaveLength(1);
      expect(mails[0]!.raw).toMatch(/Subject: Your Jumbe verification code: \d{6}/);
    }
  });

  it("asks for a new sign-up code while the mail server is down: the answer says it is sent, and it goes out once it is back", async () => {
    smtpAt(port);
    const email = uniqueEmail("resend");
    await createSignup({ firstName: "Neema", lastName: "Atieno", email, password: "Karibu#2026" }, META);
    await sendQueuedMail();
    await db().execute(sql`delete from rate_limits where key like 'code:resend:%'`);
    smtpAt(await closedPort());
    const resent = await resendSignupCode(email, META);
    expect(resent).toMatchObject({ ok: true });
    await sendQueuedMail();
    await mailServerBack();
    expect(received.filter((m) => m.to.includes(email))).toHaveLength(2);
  });

  it("resets a password while the mail server is down: the new password is set, and the notice goes out once it is back", async () => {
    const account = await createVerifiedUser();
    const code = await issueCode(account.user.id, "reset", account.email);
    smtpAt(await closedPort());
    const outcome = await resetPassword(account.email, code, "Another#Horse2", META);
    expect(outcome).toMatchObject({ ok: true });
    await sendQueuedMail();
    expect(received.filter((m) => m.to.includes(account.email))).toHaveLength(0);
    await mailServerBack();
    const notices = received.filter((m) => m.to.includes(account.email));
    expect(notices).toHaveLength(1);
  });
});
