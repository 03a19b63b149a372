import { registerJobHandler } from "./worker";
import { WEBHOOK_QUEUE } from "../webhooks/ingest";
import { processWebhookJobs, REFRESH_PHONE_QUEUE, REPLAY_UNROUTED_QUEUE, replayUnroutedChanges } from "../webhooks/process";
import { refreshPhoneNumbers } from "../whatsapp/connections";
import { RESET_MAIL_QUEUE, sendResetMails, type ResetMailPayload } from "../auth/reset-mail-job";

/** Every job queue of the product and its handler; servers and tests call this once. */
export function registerJobHandlers() {
  // Each webhook job already groups the deliveries of one ingest commit.
  registerJobHandler<{ eventIds: number[] }>({ queue: WEBHOOK_QUEUE, batchSize: 50, maxAttempts: 12, run: processWebhookJobs });
  registerJobHandler<{ wabaId: string }>({ queue: REPLAY_UNROUTED_QUEUE, batchSize: 10, maxAttempts: 12, run: replayUnroutedChanges });
  // Calls Graph: outside a transaction, one number per job.
  registerJobHandler<{ phoneNumberId: string }>({ queue: REFRESH_PHONE_QUEUE, batchSize: 1, maxAttempts: 8, transactional: false, run: (jobs, executor) => refreshPhoneNumbers(jobs, executor) });
  // Sends mail: outside a transaction, one address per job.
  registerJobHandler<ResetMailPayload>({ queue: RESET_MAIL_QUEUE, batchSize: 1, maxAttempts: 6, transactional: false, run: (jobs) => sendResetMails(jobs) });
}
