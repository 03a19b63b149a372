import { registerJobHandler } from "../infrastructure/jobs/worker";
import { registerRecurringJob } from "../infrastructure/jobs/recurring";
import { log } from "../infrastructure/log";
import { HOUSEKEEPING_EVERY_SECONDS, HOUSEKEEPING_QUEUE, sweepExpiredData } from "../domains/housekeeping/sweep";
import { requeueLostDeliveries } from "../domains/webhooks-out/deliver";
import { eraseDueOrganisations } from "../domains/organisation/erasure";
import { pruneSystemData } from "../domains/admin/system/monitor";

/**
 * Housekeeping, once every ten minutes across all instances: expired sessions and codes, rows past
 * their retention, lost webhook deliveries, closed organisations past their grace, old metric
 * samples. The one job that spans domains (four of them), so the composition root registers it.
 */
export function registerHousekeepingJob() {
  registerJobHandler<unknown>({
    queue: HOUSEKEEPING_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    leaseMs: 10 * 60_000,
    transactional: false,
    async run() {
      const removed = await sweepExpiredData();
      const requeuedDeliveries = await requeueLostDeliveries();
      // Organisations closed more than 30 days ago (decision 032).
      const erasedOrganisations = (await eraseDueOrganisations()).length;
      // The System tab's metric samples past 30 days, and heartbeats of instances long gone.
      const metricSamples = await pruneSystemData();
      log().info({ removed, requeuedDeliveries, erasedOrganisations, metricSamples }, "housekeeping");
    },
  });
  registerRecurringJob({ name: "housekeeping", queue: HOUSEKEEPING_QUEUE, everySeconds: HOUSEKEEPING_EVERY_SECONDS });
}
