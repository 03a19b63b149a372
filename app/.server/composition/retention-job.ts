import { registerJobHandler } from "../infrastructure/jobs/worker";
import { registerRecurringJob } from "../infrastructure/jobs/recurring";
import { log } from "../infrastructure/log";
import {
  createPartitionsAhead,
  dropExpiredPartitions,
  PARTITIONS_EVERY_SECONDS,
  PARTITIONS_QUEUE,
} from "../domains/housekeeping/partitions";
import { enforceAllRetention, RETENTION_EVERY_SECONDS, RETENTION_QUEUE } from "../domains/housekeeping/retention";

/**
 * Issue 78 (decisions 164 and 165), each daily and once across all instances: the log tables' next
 * months' partitions; and retention, which first drops whole partitions past the platform's
 * longest retention, then removes in each organisation what is past its own.
 */
export function registerRetentionJobs() {
  registerJobHandler<unknown>({
    queue: PARTITIONS_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    async run() {
      log().info({ created: await createPartitionsAhead() }, "partitions");
    },
  });
  registerRecurringJob({ name: "partitions-ahead", queue: PARTITIONS_QUEUE, everySeconds: PARTITIONS_EVERY_SECONDS });
  registerJobHandler<unknown>({
    queue: RETENTION_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    leaseMs: 60 * 60_000,
    transactional: false,
    async run() {
      const dropped = await dropExpiredPartitions();
      const removed = await enforceAllRetention();
      log().info({ dropped, ...removed }, "retention");
    },
  });
  registerRecurringJob({ name: "retention", queue: RETENTION_QUEUE, everySeconds: RETENTION_EVERY_SECONDS });
}
