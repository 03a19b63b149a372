import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { deliverQueuedSms, SMS_SEND_QUEUE } from "./send";

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
}
