import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { deliverQueuedSms, settleUnknownSms, SMS_SEND_QUEUE, SMS_SETTLE_QUEUE } from "./send";

/** SMS's queue: each queued SMS handed to Africa's Talking (at most once: send.ts). */
export function registerSmsJobs() {
  registerJobHandler<{ messageId: string }>({
    queue: SMS_SEND_QUEUE,
    batchSize: 10,
    maxAttempts: 3,
    transactional: false,
    run: async (jobs) => {
      for (const job of jobs) await deliverQueuedSms(job.payload.messageId);
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
}
