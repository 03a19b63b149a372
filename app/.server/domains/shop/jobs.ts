import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { reconcileCatalog, runProductSync, SHOP_RECONCILE_QUEUE } from "./catalog";
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
}
