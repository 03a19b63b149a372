import { desc, eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { mailOutbox, organizations, users } from "~/.server/infrastructure/db/schema";
import { createSignup } from "~/.server/domains/auth/signup";
import { verifySignupCode } from "~/.server/domains/auth/verification";
import { signIn } from "~/.server/domains/auth/signin";
import { hashPassword } from "~/.server/domains/auth/password";
import { newBusinessId } from "~/.server/domains/auth/signup";
import { cookieHeader } from "./http";
import { registerMailJobHandlers } from "~/.server/composition/job-handlers";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { CODE_MAIL_QUEUE } from "~/.server/domains/auth/code-mail-job";
import { MAIL_QUEUE } from "~/.server/infrastructure/mail/queue";

registerMailJobHandlers();

/**
 * Runs the mail that requests queued (a code's e-mail, a notice: decision 100) as the server's
 * workers would, and only that: the other queues stay as the test left them.
 */
export async function sendQueuedMail() {
  while ((await runJobBatch(CODE_MAIL_QUEUE)) + (await runJobBatch(MAIL_QUEUE)) > 0);
}

/**
 * One argon2id hash per password in a test worker (its files share the modules): the tests'
 * accounts share a few passwords, and a hash (about 25 ms of CPU each) verifies the same whatever
 * its salt. Sign-up and password changes still hash through the product's own code.
 */
const hashes = new Map<string, Promise<string>>();
export const passwordHashFor = (password: string) => {
  let found = hashes.get(password);
  if (!found) hashes.set(password, (found = hashPassword(password)));
  return found;
};

export const META = { ip: "198.51.100.7", userAgent: "vitest" };
let counter = 0;

export function uniqueEmail(prefix = "user") {
  counter += 1;
  return `${prefix}${counter}-${Date.now()}@example.co.ke`;
}

/** The newest mail to `to`, from the sandbox outbox once the queued mail has gone out. */
export async function latestMailTo(to: string) {
  await sendQueuedMail();
  const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to)).orderBy(desc(mailOutbox.id)).limit(1);
  return mail ?? null;
}

/** The code of the newest mail to `to` that carries one (its subject ends in the code; other mail, such as a new-device notice, is passed over). */
export async function latestCodeFor(to: string) {
  await sendQueuedMail();
  const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to)).orderBy(desc(mailOutbox.id)).limit(20);
  const mail = mails.find((m) => /: \d{6}$/.test(m.subject));
  const code = mail?.textBody.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code mailed to ${to}`);
  return code;
}

/** A verified individual account created directly in the database (for tests not about sign-up). */
export async function createVerifiedUser(
  options: {
    email?: string;
    password?: string;
    usertype?: "individual" | "admin";
    /** A platform administrator's staff role (issue 74); none is an owner of the console. */
    platformRole?: "owner" | "finance" | "support";
    businessName?: string;
    status?: "active" | "suspended" | "pending";
    verified?: boolean;
  } = {},
) {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? "Correct#Horse1";
  const [organization] = await db()
    .insert(organizations)
    .values({ name: options.businessName ?? "Test Biashara Ltd", businessId: newBusinessId(), status: options.status ?? "active" })
    .returning();
  const [user] = await db()
    .insert(users)
    .values({
      organizationId: organization!.id,
      email,
      firstName: "Test",
      lastName: "User",
      usertype: options.usertype ?? "individual",
      platformRole: options.platformRole ?? null,
      passwordHash: await passwordHashFor(password),
      isVerified: options.verified ?? true,
    })
    .returning();
  return { organization: organization!, user: user!, email, password };
}

/** Signs in through the domain function and returns a Cookie header carrying the session. */
export async function signedInCookie(email: string, password: string, remember = false) {
  const outcome = await signIn(email, password, remember, META);
  if (!outcome.ok) throw new Error(`sign-in failed: ${outcome.message}`);
  return cookieHeader([outcome.setCookie]);
}

export async function signUpAndVerify(email = uniqueEmail(), password = "Correct#Horse1") {
  await createSignup({ firstName: "Amina", lastName: "Hassan", email, password }, META);
  const outcome = await verifySignupCode(email, await latestCodeFor(email), META);
  if (!outcome.ok) throw new Error(outcome.message);
  return { email, password };
}
