import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { runProductSync, SHOP_RECONCILE_QUEUE } from "./catalog";
import {
  readBatchOutcome,
  reconcileCatalog,
  sendProductBatch,
  SHOP_BATCH_QUEUE,
  SHOP_BATCH_STATUS_QUEUE,
  type BatchJob,
} from "./catalog-batch";
import { SHOP_SYNC_QUEUE } from "./products";

/** Products pushed to Meta's catalog one at a time (they call Graph), outside a transaction, retried by the queue. */
export function registerShopJobs() {
  registerJobHandler<{ organizationId: string; productId: string; deleteMetaId?: string }>({
    queue: SHOP_SYNC_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 1,
    transactional: false,
    run: (jobs) => runProductSync(jobs),
  });
  registerJobHandler<{ organizationId: string }>({
    queue: SHOP_RECONCILE_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    concurrency: 1,
    transactional: false,
    async run(jobs) {
      for (const job of jobs) await reconcileCatalog(job.payload.organizationId);
    },
  });
  // Many products in one items_batch (decision 141); one at a time with the single pushes' queue's order kept by its own.
  registerJobHandler<BatchJob>({
    queue: SHOP_BATCH_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 1,
    transactional: false,
    async run(jobs) {
      for (const job of jobs) await sendProductBatch(job.payload);
    },
  });
  registerJobHandler<{ batchId: string; polls: number }>({
    queue: SHOP_BATCH_STATUS_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 1,
    transactional: false,
    async run(jobs) {
      for (const job of jobs) await readBatchOutcome(job.payload);
    },
  });
}
