import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import { runSystemMonitor, SYSTEM_MONITOR_EVERY_SECONDS, SYSTEM_MONITOR_QUEUE } from "./system/monitor";

/**
 * The System tab (issue 19): the platform's samples (queue, webhooks, error rate) and the alert
 * rules, once a minute across all instances. Reads and a few writes: outside one transaction.
 */
export function registerAdminJobs() {
  registerJobHandler<unknown>({
    queue: SYSTEM_MONITOR_QUEUE,
    batchSize: 1,
    maxAttempts: 2,
    transactional: false,
    run: () => runSystemMonitor().then(() => undefined),
  });
  registerRecurringJob({ name: "system-monitor", queue: SYSTEM_MONITOR_QUEUE, everySeconds: SYSTEM_MONITOR_EVERY_SECONDS });
}
