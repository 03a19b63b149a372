import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import { WALLET_ALERTS_QUEUE } from "./ledger";
import { runWalletAlerts } from "./alerts";
import { BILLING_CYCLE_EVERY_SECONDS, BILLING_CYCLE_QUEUE, runBillingCycle } from "./cycle";
import { settlePendingPrompts } from "./mpesa";
import { settlePendingCards } from "./card";
import { foldUsage, USAGE_FOLD_EVERY_SECONDS, USAGE_FOLD_QUEUE } from "./usage-fold";

/** Pending M-Pesa prompts and card checkouts are looked at this often (their own schedules inside). */
export const PAYMENTS_CHECK_QUEUE = "billing.payments-check";
export const PAYMENTS_CHECK_EVERY_SECONDS = 15;

/** Billing's job queues: the wallet's alerts, the monthly cycle, and payments whose callback never came. */
export function registerBillingJobs() {
  // The wallet's alerts (a notification; an M-Pesa prompt, a Daraja call), outside a transaction.
  registerJobHandler<{ organizationId: string }>({
    queue: WALLET_ALERTS_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runWalletAlerts(jobs),
  });
  // The monthly invoices, plan changes and overdue reminders: idempotent, every five minutes.
  registerJobHandler({
    queue: BILLING_CYCLE_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => runBillingCycle().then(() => undefined),
  });
  registerRecurringJob({ name: "billing-cycle", queue: BILLING_CYCLE_QUEUE, everySeconds: BILLING_CYCLE_EVERY_SECONDS });
  // The usage fold (decision 173): charges' pending usage added into the daily rollup, every 2 s.
  registerJobHandler({
    queue: USAGE_FOLD_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => foldUsage().then(() => undefined),
  });
  registerRecurringJob({ name: "billing-usage-fold", queue: USAGE_FOLD_QUEUE, everySeconds: USAGE_FOLD_EVERY_SECONDS });
  // Payments whose callback never came: Safaricom's STK query, Paystack's verification (calls out).
  registerJobHandler({
    queue: PAYMENTS_CHECK_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: async () => {
      await settlePendingPrompts();
      await settlePendingCards();
    },
  });
  registerRecurringJob({ name: "payments-check", queue: PAYMENTS_CHECK_QUEUE, everySeconds: PAYMENTS_CHECK_EVERY_SECONDS });
}
