import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { RECONNECT_MAIL_QUEUE, sendReconnectMails } from "./token-refusal";
import { INBOUND_MEDIA_ATTEMPTS, INBOUND_MEDIA_QUEUE, runInboundMediaJobs } from "./inbound-media";

/** Messaging's job queues: the e-mail that an account needs reconnecting, and customers' media downloaded. */
export function registerMessagingJobs() {
  // The e-mail that a WhatsApp account needs reconnecting (Meta refused its token): like the other mails.
  registerJobHandler<{ organizationId: string; account: string; reason: string }>({
    queue: RECONNECT_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    transactional: false,
    run: (jobs) => sendReconnectMails(jobs),
  });
  // Customers' media downloaded into storage: Graph calls and a file write, outside a transaction;
  // one message per job, and a download that keeps failing is recorded on its message.
  registerJobHandler<{ messageId: string }>({
    queue: INBOUND_MEDIA_QUEUE,
    batchSize: 1,
    maxAttempts: INBOUND_MEDIA_ATTEMPTS + 1,
    concurrency: 2,
    leaseMs: 5 * 60_000,
    transactional: false,
    run: (jobs) => runInboundMediaJobs(jobs),
  });
}
