import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { LATE_FAILURES_QUEUE, runLateFailureJobs } from "./late-failures";

/**
 * Failures Meta reports after a campaign finished: told in its notification and the activity log
 * (decision 114), one campaign a job, each in a transaction of its own under the campaign's lock.
 */
export function registerCampaignJobs() {
  registerJobHandler<{ campaignId: string }>({
    queue: LATE_FAILURES_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runLateFailureJobs(jobs),
  });
}
