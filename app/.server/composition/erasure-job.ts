import { registerJobHandler } from "../infrastructure/jobs/worker";
import { ERASE_COPIES_QUEUE, runEraseCopiesJob, type EraseCopiesJob } from "../domains/integrations/erasure";

/**
 * An erased person's copies in the connected tools (decision 115): one job per erasure, outside a
 * transaction (it calls HubSpot and Google), retried with the queue's backoff; every step is safe to
 * repeat. Registered by each connector that can hold a copy (HubSpot, Google Sheets); registering it
 * twice keeps one handler.
 */
export function registerErasureJob() {
  registerJobHandler<EraseCopiesJob>({
    queue: ERASE_COPIES_QUEUE,
    batchSize: 1,
    maxAttempts: 12,
    transactional: false,
    run: async (jobs) => {
      for (const job of jobs) await runEraseCopiesJob(job);
    },
  });
}
