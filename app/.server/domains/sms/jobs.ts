import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { deliverQueuedSmsBatch, recoverUnansweredSms, settleUnknownSms, SMS_RECOVER_QUEUE, SMS_SEND_QUEUE, SMS_SETTLE_QUEUE } from "./send";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import { runFallbacks, SMS_FALLBACK_QUEUE, SMS_FALLBACK_SWEEP_EVERY_SECONDS, SMS_FALLBACK_SWEEP_QUEUE, sweepFallbacks } from "./fallback";

/** SMS's queues: each queued SMS handed to Africa's Talking (at most once: send.ts), and the WhatsApp fallback's (fallback.ts). */
export function registerSmsJobs() {
  registerJobHandler<{ messageId: string }>({
    queue: SMS_SEND_QUEUE,
    // Handed to AT by the batch: several calls at once, one transaction for their answers (send.ts).
    batchSize: 200,
    maxAttempts: 3,
    concurrency: 2,
    transactional: false,
    run: async (jobs) => {
      await deliverQueuedSmsBatch(jobs.map((job) => job.payload.messageId));
    },
  });
  registerJobHandler<{ messageId: string }>({
    queue: SMS_SETTLE_QUEUE,
    batchSize: 20,
    maxAttempts: 5,
    transactional: false,
    run: async (jobs) => {
      for (const job of jobs) await settleUnknownSms(job.payload.messageId);
    },
  });
  registerJobHandler<{ fallbackId: string }>({
    queue: SMS_FALLBACK_QUEUE,
    // Decided by the batch, in a few statements (fallback-run.ts): 10,000 failures become SMS within
    // two minutes (issue 77's benchmark); their send jobs start at once.
    batchSize: 200,
    maxAttempts: 5,
    concurrency: 2,
    transactional: false,
    queuesMore: true,
    run: async (jobs) => {
      await runFallbacks(jobs.map((job) => job.payload.fallbackId));
    },
  });
  registerJobHandler<Record<string, never>>({
    queue: SMS_FALLBACK_SWEEP_QUEUE,
    batchSize: 1,
    maxAttempts: 1,
    transactional: false,
    run: async () => {
      await sweepFallbacks();
    },
  });
  registerJobHandler<Record<string, never>>({
    queue: SMS_RECOVER_QUEUE,
    batchSize: 1,
    maxAttempts: 1,
    transactional: false,
    run: async () => {
      while ((await recoverUnansweredSms()) > 0);
    },
  });
  registerRecurringJob({ name: "sms-recover-unanswered", queue: SMS_RECOVER_QUEUE, everySeconds: 60 });
  registerRecurringJob({ name: "sms-fallback-sweep", queue: SMS_FALLBACK_SWEEP_QUEUE, everySeconds: SMS_FALLBACK_SWEEP_EVERY_SECONDS });
}
