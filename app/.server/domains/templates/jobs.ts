import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import {
  enqueueAllTemplateSyncs,
  runTemplateSyncJobs,
  TEMPLATE_SYNC_ALL_QUEUE,
  TEMPLATE_SYNC_EVERY_SECONDS,
  TEMPLATE_SYNC_QUEUE,
} from "./sync";

/** Templates reconciled with Meta: one account per job (it calls Graph), outside a transaction; every account queued on a schedule. */
export function registerTemplateJobs() {
  registerJobHandler<{ accountId: string }>({
    queue: TEMPLATE_SYNC_QUEUE,
    batchSize: 1,
    maxAttempts: 8,
    concurrency: 1,
    transactional: false,
    run: (jobs) => runTemplateSyncJobs(jobs),
  });
  registerJobHandler<unknown>({
    queue: TEMPLATE_SYNC_ALL_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    async run() {
      await enqueueAllTemplateSyncs();
    },
  });
  registerRecurringJob({ name: "template-sync", queue: TEMPLATE_SYNC_ALL_QUEUE, everySeconds: TEMPLATE_SYNC_EVERY_SECONDS });
}
