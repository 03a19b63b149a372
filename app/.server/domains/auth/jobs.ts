import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { CODE_MAIL_QUEUE, sendCodeMails, type CodeMailPayload } from "./code-mail-job";
import { RESET_MAIL_QUEUE, sendResetMails, type ResetMailPayload } from "./reset-mail-job";

/** A code's e-mail, which the job issues (decision 100): like the other mails, outside a transaction, one mail per job. */
export function registerCodeMailJob() {
  registerJobHandler<CodeMailPayload>({
    queue: CODE_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendCodeMails(jobs),
  });
}

/** Sign-in's job queues: the code's e-mail and the password reset's. */
export function registerAuthJobs() {
  registerCodeMailJob();
  // Sends mail: outside a transaction, one address per job; a slow mail server holds up no other queue.
  registerJobHandler<ResetMailPayload>({
    queue: RESET_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendResetMails(jobs),
  });
}
