import type { Executor } from "../db/client";
import { enqueueJob, type Job } from "../jobs/queue";
import { wakeWorkers } from "../jobs/worker";
import { sendMail, type OutgoingMail } from "./transport";

/**
 * A written e-mail that carries no secret (a notice: the password was changed, the address already
 * has an account, an invoice reminder) goes out from this job, not from the request: a mail server
 * that is down or slow fails no request and loses no mail, the job retries it (decision 100).
 * Mail with a code is written in its own job, which issues the code (domains/auth/code-mail-job.ts).
 */
export const MAIL_QUEUE = "mail.send";

export async function queueMail(mail: OutgoingMail, options: { executor?: Executor } = {}) {
  // Someone may be waiting for it: ahead of background work on its queue.
  await enqueueJob(MAIL_QUEUE, mail satisfies OutgoingMail, { executor: options.executor, priority: 10 });
  if (!options.executor) wakeWorkers();
}

export async function sendQueuedMails(jobs: Job<OutgoingMail>[]) {
  for (const { payload } of jobs) await sendMail(payload);
}
