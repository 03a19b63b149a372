import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { AD_PICTURE_ATTEMPTS, AD_PICTURE_QUEUE, runAdPictureJobs } from "./picture";

/** The ads' job queue: each ad's picture fetched from Meta's CDN into storage, outside a transaction. */
export function registerAdJobs() {
  registerJobHandler<{ adReferralId: string }>({
    queue: AD_PICTURE_QUEUE,
    batchSize: 1,
    maxAttempts: AD_PICTURE_ATTEMPTS + 1,
    concurrency: 2,
    leaseMs: 2 * 60_000,
    transactional: false,
    run: (jobs) => runAdPictureJobs(jobs),
  });
}
