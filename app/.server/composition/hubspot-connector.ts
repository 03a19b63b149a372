import { registerProvider } from "../domains/integrations/providers";
import { registerJobHandler } from "../infrastructure/jobs/worker";
import { registerErasureJob } from "./erasure-job";
import { registerRecurringJob } from "../infrastructure/jobs/recurring";
import { hubspotProvider } from "../domains/integrations/hubspot/provider";
import {
  enqueueAllSyncs,
  HUBSPOT_SYNC_ALL_QUEUE,
  HUBSPOT_SYNC_EVERY_SECONDS,
  HUBSPOT_SYNC_QUEUE,
  runSyncJob,
  type SyncJob,
} from "../domains/integrations/hubspot/sync";

/**
 * HubSpot (decision 083): the provider for the generic OAuth flow, the per-organisation sync job
 * (calls HubSpot, so outside a transaction; one at a time per organisation by its unique key) and
 * the recurring fan-out that queues a sync for every connected organisation.
 */
export function registerHubspotConnector() {
  registerErasureJob();
  registerProvider(hubspotProvider);
  registerJobHandler<SyncJob>({
    queue: HUBSPOT_SYNC_QUEUE,
    batchSize: 1,
    maxAttempts: 20,
    concurrency: 2,
    leaseMs: 30 * 60_000,
    transactional: false,
    run: async (jobs) => {
      for (const job of jobs) await runSyncJob(job);
    },
  });
  registerJobHandler({
    queue: HUBSPOT_SYNC_ALL_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    queuesMore: true,
    run: async (_jobs, tx) => {
      await enqueueAllSyncs(tx);
    },
  });
  registerRecurringJob({ name: "hubspot-sync", queue: HUBSPOT_SYNC_ALL_QUEUE, everySeconds: HUBSPOT_SYNC_EVERY_SECONDS });
}
