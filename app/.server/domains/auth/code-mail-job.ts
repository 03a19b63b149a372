import { env } from "../../infrastructure/config/env";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { wakeWorkers } from "../../infrastructure/jobs/worker";
import { log } from "../../infrastructure/log";
import { sendMail } from "../../infrastructure/mail/transport";
import { emailChangeMail, signInCodeMail, verificationCodeMail } from "../../infrastructure/mail/messages";
import { issueCode } from "./codes";
import { findUserById } from "./users";
import type { Locale } from "~/paraglide/runtime";

/**
 * The e-mails that carry a code (sign-up, a new address, a sign-in from a new browser) go out from
 * this job, as team invitations do: a mail server that is down fails no request, and the job retries
 * (decision 100). The job issues the code as it mails it, so no code is ever stored in the clear (a
 * job's payload is kept a while); a retry after a failed send mails a newer code, and only the
 * newest works. The request's language rides in the payload.
 */
export const CODE_MAIL_QUEUE = "auth.code-mail";

export type CodeMailPayload = { userId: string; to: string; locale: Locale } & (
  { purpose: "signup" | "email_change" } | { purpose: "signin"; from: { device: string; ip: string } }
);

/**
 * Queues a code's e-mail. One pending job per account, purpose and address: asking twice before it
 * ran mails once (the code mailed is the newest either way).
 */
export async function queueCodeMail(payload: CodeMailPayload) {
  await enqueueJob(CODE_MAIL_QUEUE, payload, {
    // Someone is waiting for this mail: ahead of background work on its queue.
    priority: 10,
    uniqueKey: `code-mail:${payload.purpose}:${payload.userId}:${payload.to.toLowerCase()}`,
  });
  wakeWorkers();
}

/** The job: a fresh code for each account still there (a sign-up's still unverified), and its e-mail. */
export async function sendCodeMails(jobs: Job<CodeMailPayload>[]) {
  for (const { payload } of jobs) {
    const account = await findUserById(payload.userId);
    if (!account) continue;
    if (payload.purpose === "signup" && account.user.isVerified) continue;
    const code = await issueCode(payload.userId, payload.purpose, payload.to);
    if (env().sandbox) log().warn(`[sandbox] ${payload.purpose} code for ${payload.to}: ${code}`);
    await sendMail(
      payload.purpose === "signin"
        ? signInCodeMail(payload.to, code, payload.from, payload.locale)
        : payload.purpose === "email_change"
          ? emailChangeMail(payload.to, code, payload.locale)
          : verificationCodeMail(payload.to, code, payload.locale),
    );
  }
}
