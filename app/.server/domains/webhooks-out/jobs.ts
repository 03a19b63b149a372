import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { WEBHOOK_OUT_QUEUE, type DeliveryJob } from "./events";
import { runDeliveryJobs, sendDisabledMails, WEBHOOK_DISABLED_MAIL_QUEUE } from "./deliver";

/** Webhooks out: the deliveries to tenants' endpoints, and the e-mail when one is switched off. */
export function registerWebhooksOutJobs() {
  // HTTP calls to tenants' endpoints (5 s at most each), outside a transaction; each job is one
  // attempt and schedules the next itself (decision 021), so the queue's own retries only cover a
  // failure to reach the database.
  registerJobHandler<DeliveryJob>({
    queue: WEBHOOK_OUT_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    concurrency: 2,
    transactional: false,
    run: (jobs) => runDeliveryJobs(jobs),
  });
  registerJobHandler<{ organizationId: string; url: string }>({
    queue: WEBHOOK_DISABLED_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    transactional: false,
    run: (jobs) => sendDisabledMails(jobs),
  });
}
