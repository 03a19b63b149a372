import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import {
  AUTOMATION_ARRIVAL_QUEUE,
  AUTOMATION_ASSISTANT_QUEUE,
  AUTOMATION_QUEUE,
  runAutomations,
  runAutomationsArrival,
  type AutomationArrivalPayload,
  type AutomationPayload,
} from "./run";
import { AUTOMATION_WEBHOOK_QUEUE, callRuleWebhooks, type RuleWebhookJob } from "./call-webhook";
import { CONTACT_CHANGES_QUEUE, runContactChangesJob } from "./batch-effects";
import { FLOW_IDLE_EVERY_SECONDS, FLOW_IDLE_QUEUE, runWakeJobs, timeOutIdleSessions } from "./flows/jobs";
import { ORDER_PAYMENT_QUEUE, runOrderPaymentJobs, type OrderPaymentJob } from "./order-payment";
import { FLOW_PAYMENT_QUEUE, FLOW_WAKE_QUEUE, type FlowPaymentJob } from "./flows/session";
import { FLOW_PAYMENT_CLOSED_QUEUE, runFlowPaymentClosedJobs, runFlowPaymentJobs, type FlowPaymentClosedJob } from "./flows/payment";

/** Automations' job queues: customers' messages answered, rule webhooks called, flows woken and timed out. */
export function registerAutomationJobs() {
  // Automations on arrival: a webhook batch's customer messages read with what decides them (one
  // statement), and a job queued for each that an automation may answer, with the batch's completion.
  registerJobHandler<AutomationArrivalPayload>({
    queue: AUTOMATION_ARRIVAL_QUEUE,
    batchSize: 10,
    maxAttempts: 10,
    run: (jobs, tx) => runAutomationsArrival(tx, jobs),
  });
  // Automations: a keyword rule, the welcome or the away message for a customer's message; each
  // message once (a run row), its reply queued in the run's own transaction. A batch's messages are
  // read in one statement (run.ts), so a larger batch costs less a message; a flow's HTTP step waits
  // at most FLOW_HTTP_TIMEOUT_MS, so 25 of them end well within the lease.
  registerJobHandler<AutomationPayload>({
    queue: AUTOMATION_QUEUE,
    batchSize: 25,
    leaseMs: 200_000,
    maxAttempts: 5,
    // Each message's run is its own transaction (a unique run row), so batches may run side by side;
    // each answers three conversations at once (run.ts), so two batches keep six of the process's
    // DATABASE_POOL_SIZE connections (10 by default) busy at most, leaving the rest to the webhooks'
    // intake and the dispatcher: customers' messages are stored first, answered next.
    concurrency: 2,
    transactional: false,
    run: (jobs) => runAutomations(jobs),
  });
  // The same for organisations whose assistant is on: a message may wait up to ASSISTANT_TIMEOUT_MS
  // (20 s) for the model, so a batch of 8 ends well within its 200 s lease and no second worker
  // takes (and pays for) it again.
  registerJobHandler<AutomationPayload>({
    queue: AUTOMATION_ASSISTANT_QUEUE,
    batchSize: 8,
    leaseMs: 200_000,
    maxAttempts: 5,
    concurrency: 4,
    transactional: false,
    run: (jobs) => runAutomations(jobs),
  });
  // Rule tags and fields kept for contacts that were busy when their reply was queued (batch-effects.ts).
  registerJobHandler<{ later?: boolean }>({
    queue: CONTACT_CHANGES_QUEUE,
    batchSize: 1,
    maxAttempts: 10,
    run: async ([job], tx) => runContactChangesJob(tx, job!.payload),
  });
  // A keyword rule's webhook call, signed and SSRF-checked like webhooks out; retried with backoff.
  registerJobHandler<RuleWebhookJob>({
    queue: AUTOMATION_WEBHOOK_QUEUE,
    batchSize: 10,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => callRuleWebhooks(jobs),
  });
  // Flows (issue 44): a wait step's wake-up, and sessions idle past their flow's time ended (once a
  // minute across all instances). Each queues messages, so outside a transaction.
  registerJobHandler<{ sessionId: string; stepId: string }>({
    queue: FLOW_WAKE_QUEUE,
    batchSize: 20,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runWakeJobs(jobs),
  });
  // A payment step's request made (after the turn that reached it), and the flow taken on when the
  // request closes (queued in the closing transaction). Each sends, so outside a transaction.
  registerJobHandler<FlowPaymentJob>({
    queue: FLOW_PAYMENT_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runFlowPaymentJobs(jobs),
  });
  registerJobHandler<FlowPaymentClosedJob>({
    queue: FLOW_PAYMENT_CLOSED_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runFlowPaymentClosedJobs(jobs),
  });
  // "When a cart arrives, ask for its total" (order-payment.ts): one job an order, queued with it.
  registerJobHandler<OrderPaymentJob>({
    queue: ORDER_PAYMENT_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runOrderPaymentJobs(jobs),
  });
  registerJobHandler({
    queue: FLOW_IDLE_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => timeOutIdleSessions().then(() => undefined),
  });
  registerRecurringJob({ name: "flows-idle", queue: FLOW_IDLE_QUEUE, everySeconds: FLOW_IDLE_EVERY_SECONDS });
}
