import { registerJobHandler } from "../../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../../infrastructure/jobs/recurring";
import { CONVERSIONS_SEND_QUEUE } from "./record";
import { sendDueConversions } from "./send";

/** A minute's sweep: events due again after a backoff, and any left by a sender that stopped. */
export const CONVERSIONS_SWEEP_EVERY_SECONDS = 60;

/** The conversions' sender: queued with each new event (one pending at a time), and every minute. */
export function registerConversionJobs() {
  registerJobHandler<Record<string, never>>({
    queue: CONVERSIONS_SEND_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: async () => {
      await sendDueConversions();
    },
  });
  registerRecurringJob({ name: "ad-conversions-send", queue: CONVERSIONS_SEND_QUEUE, everySeconds: CONVERSIONS_SWEEP_EVERY_SECONDS });
}
