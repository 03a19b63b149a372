import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import { ANALYTICS_FOLD_EVERY_SECONDS, ANALYTICS_FOLD_QUEUE, foldAnalytics } from "./fold";

/**
 * Analytics (decision 036): the figures the messages trigger left pending, added into the rollups.
 * One fold at a time across the instances (it takes an advisory lock and skips when another holds it).
 */
export function registerAnalyticsJobs() {
  registerJobHandler({
    queue: ANALYTICS_FOLD_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => foldAnalytics().then(() => undefined),
  });
  registerRecurringJob({ name: "analytics-fold", queue: ANALYTICS_FOLD_QUEUE, everySeconds: ANALYTICS_FOLD_EVERY_SECONDS });
}
