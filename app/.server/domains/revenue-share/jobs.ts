import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import { PAYOUT_QUEUE, PAYOUT_STATUS_QUEUE, queryOverduePayouts, runPayoutJobs } from "./payouts";
import { SETTLE_CHECK_EVERY_SECONDS, SETTLE_QUEUE, settleDueMonth } from "./schedule";

/** Revenue share's job queues: partners' payouts by M-Pesa B2C and the monthly settlement. */
export function registerRevenueShareJobs() {
  // Partners' payouts by M-Pesa B2C (issue 46): each attempt sent outside a transaction (a timeout in
  // doubt retries the same id), and attempts whose result is overdue asked about once a minute.
  registerJobHandler<{ payoutId: string }>({ queue: PAYOUT_QUEUE, batchSize: 1, maxAttempts: 8, transactional: false, run: runPayoutJobs });
  registerJobHandler({
    queue: PAYOUT_STATUS_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => queryOverduePayouts().then(() => undefined),
  });
  registerRecurringJob({ name: "partners-payout-status", queue: PAYOUT_STATUS_QUEUE, everySeconds: 60 });
  // The previous month's settlement on the 15th (Nairobi), looked for every ten minutes; idempotent,
  // so a retry or a second instance adds nothing. (The ledger is written with each payment, decision 102.)
  registerJobHandler({
    queue: SETTLE_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    leaseMs: 10 * 60_000,
    transactional: false,
    run: () => settleDueMonth().then(() => undefined),
  });
  registerRecurringJob({ name: "partners-settle", queue: SETTLE_QUEUE, everySeconds: SETTLE_CHECK_EVERY_SECONDS });
}
