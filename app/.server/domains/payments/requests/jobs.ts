import { registerJobHandler } from "../../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../../infrastructure/jobs/recurring";
import { PAYMENT_REQUEST_TAPS_QUEUE, runPaymentTaps } from "./taps";
import { PAYMENT_REQUEST_NOTIFY_QUEUE, type NotifyJob } from "./settle";
import { checkPendingPrompts, expireRequests, runPaymentNotify } from "./check";

/** Prompts whose callback has not come are asked about, and requests past their time closed, this often. */
export const PAYMENT_REQUEST_CHECK_QUEUE = "payments.request-check";
export const PAYMENT_REQUEST_CHECK_EVERY_SECONDS = 15;

/** Payment requests' queues: the customer's taps, the answers to them, and the recurring check. */
export function registerPaymentRequestJobs() {
  // A tap may push a prompt (a Daraja call): outside a transaction; each takes the request's lock itself.
  registerJobHandler<{ organizationId: string; messageId: string }>({
    queue: PAYMENT_REQUEST_TAPS_QUEUE,
    batchSize: 5,
    maxAttempts: 3,
    transactional: false,
    run: (jobs) => runPaymentTaps(jobs),
  });
  registerJobHandler<NotifyJob>({
    queue: PAYMENT_REQUEST_NOTIFY_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runPaymentNotify(jobs),
  });
  registerJobHandler({
    queue: PAYMENT_REQUEST_CHECK_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: async () => {
      await checkPendingPrompts();
      await expireRequests();
    },
  });
  registerRecurringJob({
    name: "payment-requests-check",
    queue: PAYMENT_REQUEST_CHECK_QUEUE,
    everySeconds: PAYMENT_REQUEST_CHECK_EVERY_SECONDS,
  });
}
