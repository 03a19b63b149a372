import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { REPLAY_UNROUTED_QUEUE } from "../../domains/whatsapp/embedded-signup";
import { refreshPhoneNumbers } from "../../domains/whatsapp/connections";
import { WEBHOOK_QUEUE } from "./ingest";
// From the modules that define them, not through process.ts's re-exports: the build puts these
// modules in different chunks, and a re-export across an import cycle would tie those chunks in a circle.
import { processWebhookJobs } from "./process";
import { replayUnroutedChanges } from "./route";
import { REFRESH_PHONE_QUEUE } from "./write";

/** Meta's webhooks: the stored deliveries processed, changes for a WABA not yet connected replayed, numbers refreshed. */
export function registerWebhooksInJobs() {
  // Each webhook job already groups the deliveries of one ingest commit; two batches at once on PostgreSQL.
  registerJobHandler<{ eventIds: number[] }>({
    queue: WEBHOOK_QUEUE,
    batchSize: 50,
    maxAttempts: 12,
    concurrency: 2,
    // Customers' messages queue their automations, which start as soon as the batch commits.
    queuesMore: true,
    run: processWebhookJobs,
  });
  registerJobHandler<{ wabaId: string }>({ queue: REPLAY_UNROUTED_QUEUE, batchSize: 10, maxAttempts: 12, run: replayUnroutedChanges });
  // Calls Graph: outside a transaction, one number per job.
  registerJobHandler<{ phoneNumberId: string }>({
    queue: REFRESH_PHONE_QUEUE,
    batchSize: 1,
    maxAttempts: 8,
    concurrency: 2,
    transactional: false,
    run: (jobs, executor) => refreshPhoneNumbers(jobs, executor),
  });
}
