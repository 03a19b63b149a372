import { registerJobHandler } from "../jobs/worker";
import { MAIL_QUEUE, sendQueuedMails } from "./queue";
import type { OutgoingMail } from "./transport";

/** A written notice queued instead of sent (decision 100): outside a transaction, one mail per job. */
export function registerMailQueueJob() {
  registerJobHandler<OutgoingMail>({
    queue: MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendQueuedMails(jobs),
  });
}
