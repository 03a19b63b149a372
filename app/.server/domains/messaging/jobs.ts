import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { RECONNECT_MAIL_QUEUE, sendReconnectMails } from "./token-refusal";
import { INBOUND_MEDIA_ATTEMPTS, INBOUND_MEDIA_QUEUE, runInboundMediaJobs } from "./inbound-media";
import { LATE_STATUSES_QUEUE, runLateStatuses } from "./late-statuses";

/** Messaging's job queues: the e-mail that an account needs reconnecting, customers' media downloaded, statuses that came early. */
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
  // Statuses that came before their send's settle committed, applied once both have (late-statuses.ts).
  registerJobHandler<{ statuses: { organizationId: string; wamid: string; messageId: string }[]; attempt: number }>({
    queue: LATE_STATUSES_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    run: runLateStatuses,
  });
}
