import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { CONSENT_REPLY_QUEUE, sendConsentReplies } from "./signals";
import { IMPORT_ATTEMPTS, IMPORT_QUEUE, runImportJobs } from "./import";

/** Contacts' job queues: a consent keyword's answer, and a CSV import. */
export function registerContactJobs() {
  // A consent keyword's answer (STOP, ACHA, START…): it queues a message, so outside the webhook's transaction.
  registerJobHandler<{ organizationId: string; messageId: string; status: "opted_in" | "opted_out"; language: "en" | "sw" }>({
    queue: CONSENT_REPLY_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => sendConsentReplies(jobs),
  });
  // A contact CSV import: one file per job, outside a transaction (each batch of rows commits its
  // own, with the position reached), resumable after a crash; the lease covers a 50 MB file.
  registerJobHandler<{ importId: string }>({
    queue: IMPORT_QUEUE,
    batchSize: 1,
    maxAttempts: IMPORT_ATTEMPTS,
    leaseMs: 15 * 60_000,
    transactional: false,
    run: (jobs) => runImportJobs(jobs),
  });
}
