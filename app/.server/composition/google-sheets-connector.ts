import { registerProvider } from "../domains/integrations/providers";
import { registerJobHandler } from "../infrastructure/jobs/worker";
import { registerErasureJob } from "./erasure-job";
import { registerRecurringJob } from "../infrastructure/jobs/recurring";
import { googleSheetsProvider } from "../domains/integrations/google-sheets/provider";
import { runSheetsExport } from "../domains/integrations/google-sheets/export";
import { enqueueDueSheetsExports, SHEETS_EXPORT_QUEUE, SHEETS_SCHEDULE_QUEUE } from "../domains/integrations/google-sheets/settings";

/** How often the scheduler looks for organisations whose hourly or daily export is due. */
export const SHEETS_SCHEDULE_EVERY_SECONDS = 60;
/** A 429 or 5xx puts the export back (Retry-After, else backoff); after this many tries it is given up. */
export const SHEETS_EXPORT_ATTEMPTS = 12;

/**
 * Google Sheets (issue 45, decision 085): the OAuth provider, the export job (one organisation per
 * job; it calls Google, so it runs outside a transaction and is idempotent through its cursor) and
 * the recurring scheduler of hourly and daily exports.
 */
export function registerGoogleSheetsConnector() {
  registerErasureJob();
  registerProvider(googleSheetsProvider);
  registerJobHandler<{ organizationId: string }>({
    queue: SHEETS_EXPORT_QUEUE,
    batchSize: 1,
    maxAttempts: SHEETS_EXPORT_ATTEMPTS,
    transactional: false,
    leaseMs: 10 * 60_000,
    async run(jobs) {
      for (const job of jobs) await runSheetsExport(job.payload.organizationId);
    },
  });
  registerJobHandler({
    queue: SHEETS_SCHEDULE_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    queuesMore: true,
    async run() {
      await enqueueDueSheetsExports();
    },
  });
  registerRecurringJob({ name: "google-sheets-schedule", queue: SHEETS_SCHEDULE_QUEUE, everySeconds: SHEETS_SCHEDULE_EVERY_SECONDS });
}
