import { registerJobHandler } from "../infrastructure/jobs/worker";
import {
  AUTOMATION_ARRIVAL_QUEUE,
  AUTOMATION_ASSISTANT_QUEUE,
  AUTOMATION_QUEUE,
  runAutomations,
  runAutomationsArrival,
  type AutomationArrivalPayload,
  type AutomationPayload,
} from "../domains/automations/run";
import { AUTOMATION_WEBHOOK_QUEUE, callRuleWebhooks, type RuleWebhookJob } from "../domains/automations/call-webhook";
import { CONTACT_CHANGES_QUEUE, runContactChangesJob } from "../domains/automations/batch-effects";
import { registerRecurringJob } from "../infrastructure/jobs/recurring";
import { FLOW_IDLE_EVERY_SECONDS, FLOW_IDLE_QUEUE, runWakeJobs, timeOutIdleSessions } from "../domains/automations/flows/jobs";
import { FLOW_WAKE_QUEUE } from "../domains/automations/flows/session";
import { WEBHOOK_QUEUE } from "../adapters/webhooks-in/ingest";
// From the modules that define them, not through process.ts's re-exports: the build puts these
// modules in different chunks, and a re-export across an import cycle would tie those chunks in a circle.
import { processWebhookJobs } from "../adapters/webhooks-in/process";
import { replayUnroutedChanges } from "../adapters/webhooks-in/route";
import { REPLAY_UNROUTED_QUEUE } from "../domains/whatsapp/embedded-signup";
import { REFRESH_PHONE_QUEUE } from "../adapters/webhooks-in/write";
import { refreshPhoneNumbers } from "../domains/whatsapp/connections";
import { RESET_MAIL_QUEUE, sendResetMails, type ResetMailPayload } from "../domains/auth/reset-mail-job";
import { INVITATION_MAIL_QUEUE, sendInvitationMails, type InvitationMailPayload } from "../domains/team/invitations";
import { CODE_MAIL_QUEUE, sendCodeMails, type CodeMailPayload } from "../domains/auth/code-mail-job";
import { MAIL_QUEUE, sendQueuedMails } from "../infrastructure/mail/queue";
import type { OutgoingMail } from "../infrastructure/mail/transport";
import { HOUSEKEEPING_EVERY_SECONDS, HOUSEKEEPING_QUEUE, sweepExpiredData } from "../domains/housekeeping/sweep";
import { log } from "../infrastructure/log";
import { RECONNECT_MAIL_QUEUE, sendReconnectMails } from "../domains/messaging/token-refusal";
import { CONSENT_REPLY_QUEUE, sendConsentReplies } from "../domains/contacts/signals";
import { WEBHOOK_OUT_QUEUE, type DeliveryJob } from "../domains/webhooks-out/events";
import { requeueLostDeliveries, runDeliveryJobs, sendDisabledMails, WEBHOOK_DISABLED_MAIL_QUEUE } from "../domains/webhooks-out/deliver";
import {
  enqueueAllTemplateSyncs,
  runTemplateSyncJobs,
  TEMPLATE_SYNC_ALL_QUEUE,
  TEMPLATE_SYNC_EVERY_SECONDS,
  TEMPLATE_SYNC_QUEUE,
} from "../domains/templates/sync";
import { INBOUND_MEDIA_ATTEMPTS, INBOUND_MEDIA_QUEUE, runInboundMediaJobs } from "../domains/messaging/inbound-media";
import { IMPORT_ATTEMPTS, IMPORT_QUEUE, runImportJobs } from "../domains/contacts/import";
import { NOTIFICATION_MAIL_QUEUE } from "../domains/notifications/notify";
import { LATE_FAILURES_QUEUE, runLateFailureJobs } from "../domains/campaigns/late-failures";
import { sendNotificationMails, type NotificationMailPayload } from "../domains/notifications/mail-job";
import { eraseDueOrganisations } from "../domains/organisation/erasure";
import { INBOX_MARK_READ_QUEUE } from "../domains/inbox/actions";
import { markConversationsRead, type MarkReadPayload } from "../domains/inbox/read-job";
import { WALLET_ALERTS_QUEUE } from "../domains/billing/ledger";
import { runWalletAlerts } from "../domains/billing/alerts";
import { ANALYTICS_FOLD_EVERY_SECONDS, ANALYTICS_FOLD_QUEUE, foldAnalytics } from "../domains/analytics/fold";
import { BILLING_CYCLE_EVERY_SECONDS, BILLING_CYCLE_QUEUE, runBillingCycle } from "../domains/billing/cycle";
import { settlePendingPrompts } from "../domains/billing/mpesa";
import { settlePendingCards } from "../domains/billing/card";
import { pruneSystemData, runSystemMonitor, SYSTEM_MONITOR_EVERY_SECONDS, SYSTEM_MONITOR_QUEUE } from "../domains/admin/system/monitor";
import { refreshExpiringTokens, TOKEN_REFRESH_EVERY_SECONDS, TOKEN_REFRESH_QUEUE } from "../domains/integrations/tokens";
import { PAYOUT_QUEUE, PAYOUT_STATUS_QUEUE, queryOverduePayouts, runPayoutJobs } from "../domains/partners/payouts";
import { SETTLE_CHECK_EVERY_SECONDS, SETTLE_QUEUE, settleDueMonth } from "../domains/partners/schedule";

/** Pending M-Pesa prompts and card checkouts are looked at this often (their own schedules inside). */
export const PAYMENTS_CHECK_QUEUE = "billing.payments-check";
export const PAYMENTS_CHECK_EVERY_SECONDS = 15;

/**
 * The mail that requests queue instead of sending (decision 100): a code's e-mail, which the job
 * issues, and a written notice. Like the other mails: outside a transaction, one mail per job.
 */
export function registerMailJobHandlers() {
  registerJobHandler<CodeMailPayload>({
    queue: CODE_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendCodeMails(jobs),
  });
  registerJobHandler<OutgoingMail>({
    queue: MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendQueuedMails(jobs),
  });
}

/** Every job queue of the product, its handler and its recurring jobs; servers and tests call this once. */
export function registerJobHandlers() {
  registerMailJobHandlers();
  // Each webhook job already groups the deliveries of one ingest commit; two batches at once on PostgreSQL.
  registerJobHandler<{ eventIds: number[] }>({
    queue: WEBHOOK_QUEUE,
    batchSize: 50,
    maxAttempts: 12,
    concurrency: 2,
    // Customers' messages queue their automations, which start as soon as the batch commits.
    queuesMore: true,
    run: processWebhookJobs,
  });
  registerJobHandler<{ wabaId: string }>({ queue: REPLAY_UNROUTED_QUEUE, batchSize: 10, maxAttempts: 12, run: replayUnroutedChanges });
  // Calls Graph: outside a transaction, one number per job.
  registerJobHandler<{ phoneNumberId: string }>({
    queue: REFRESH_PHONE_QUEUE,
    batchSize: 1,
    maxAttempts: 8,
    concurrency: 2,
    transactional: false,
    run: (jobs, executor) => refreshPhoneNumbers(jobs, executor),
  });
  // Sends mail: outside a transaction, one address per job; a slow mail server holds up no other queue.
  registerJobHandler<ResetMailPayload>({
    queue: RESET_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendResetMails(jobs),
  });
  // The inbox's read receipts at Meta: a Graph call each, outside a transaction.
  registerJobHandler<MarkReadPayload>({
    queue: INBOX_MARK_READ_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    concurrency: 2,
    transactional: false,
    run: (jobs) => markConversationsRead(jobs),
  });
  registerJobHandler<InvitationMailPayload>({
    queue: INVITATION_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendInvitationMails(jobs),
  });
  // Webhooks out: HTTP calls to tenants' endpoints (5 s at most each), outside a transaction; each job
  // is one attempt and schedules the next itself (decision 021), so the queue's own retries only
  // cover a failure to reach the database.
  registerJobHandler<DeliveryJob>({
    queue: WEBHOOK_OUT_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    concurrency: 2,
    transactional: false,
    run: (jobs) => runDeliveryJobs(jobs),
  });
  registerJobHandler<{ organizationId: string; url: string }>({
    queue: WEBHOOK_DISABLED_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    transactional: false,
    run: (jobs) => sendDisabledMails(jobs),
  });
  // A notification's e-mail, queued with it by the organisation's rule (decision 031): like the other mails.
  registerJobHandler<NotificationMailPayload>({
    queue: NOTIFICATION_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendNotificationMails(jobs),
  });
  // Failures Meta reports after a campaign finished: told in its notification and the activity log
  // (decision 114), one campaign a job, each in a transaction of its own under the campaign's lock.
  registerJobHandler<{ campaignId: string }>({
    queue: LATE_FAILURES_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runLateFailureJobs(jobs),
  });
  // The e-mail that a WhatsApp account needs reconnecting (Meta refused its token): like the other mails.
  registerJobHandler<{ organizationId: string; account: string; reason: string }>({
    queue: RECONNECT_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    transactional: false,
    run: (jobs) => sendReconnectMails(jobs),
  });
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
  registerJobHandler({
    queue: FLOW_IDLE_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => timeOutIdleSessions().then(() => undefined),
  });
  registerRecurringJob({ name: "flows-idle", queue: FLOW_IDLE_QUEUE, everySeconds: FLOW_IDLE_EVERY_SECONDS });
  // Integrations (issue 45): tokens about to expire refreshed ahead of use, once a minute across all
  // instances (each connection's refresh is claimed by one); calls the providers, so outside a transaction.
  registerJobHandler({
    queue: TOKEN_REFRESH_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => refreshExpiringTokens().then(() => undefined),
  });
  registerRecurringJob({ name: "integrations-token-refresh", queue: TOKEN_REFRESH_QUEUE, everySeconds: TOKEN_REFRESH_EVERY_SECONDS });
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
  // A consent keyword's answer (STOP, ACHA, START…): it queues a message, so outside the webhook's transaction.
  registerJobHandler<{ organizationId: string; messageId: string; status: "opted_in" | "opted_out"; language: "en" | "sw" }>({
    queue: CONSENT_REPLY_QUEUE,
    batchSize: 10,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => sendConsentReplies(jobs),
  });
  // Expired sessions and codes, rows past their retention, closed organisations past their grace: once every ten minutes across all instances.
  registerJobHandler<unknown>({
    queue: HOUSEKEEPING_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    leaseMs: 10 * 60_000,
    transactional: false,
    async run() {
      const removed = await sweepExpiredData();
      const requeuedDeliveries = await requeueLostDeliveries();
      // Organisations closed more than 30 days ago (decision 032).
      const erasedOrganisations = (await eraseDueOrganisations()).length;
      // The System tab's metric samples past 30 days, and heartbeats of instances long gone.
      const metricSamples = await pruneSystemData();
      log().info({ removed, requeuedDeliveries, erasedOrganisations, metricSamples }, "housekeeping");
    },
  });
  registerRecurringJob({ name: "housekeeping", queue: HOUSEKEEPING_QUEUE, everySeconds: HOUSEKEEPING_EVERY_SECONDS });
  // The System tab (issue 19): the platform's samples (queue, webhooks, error rate) and the alert
  // rules, once a minute across all instances. Reads and a few writes: outside one transaction.
  registerJobHandler<unknown>({
    queue: SYSTEM_MONITOR_QUEUE,
    batchSize: 1,
    maxAttempts: 2,
    transactional: false,
    run: () => runSystemMonitor().then(() => undefined),
  });
  registerRecurringJob({ name: "system-monitor", queue: SYSTEM_MONITOR_QUEUE, everySeconds: SYSTEM_MONITOR_EVERY_SECONDS });
  // Billing: the wallet's alerts (a notification; an M-Pesa prompt, a Daraja call), outside a transaction.
  registerJobHandler<{ organizationId: string }>({
    queue: WALLET_ALERTS_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    transactional: false,
    run: (jobs) => runWalletAlerts(jobs),
  });
  // Analytics (decision 036): the figures the messages trigger left pending, added into the rollups.
  // One fold at a time across the instances (it takes an advisory lock and skips when another holds it).
  registerJobHandler({
    queue: ANALYTICS_FOLD_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => foldAnalytics().then(() => undefined),
  });
  registerRecurringJob({ name: "analytics-fold", queue: ANALYTICS_FOLD_QUEUE, everySeconds: ANALYTICS_FOLD_EVERY_SECONDS });
  // The monthly invoices, plan changes and overdue reminders: idempotent, every five minutes.
  registerJobHandler({
    queue: BILLING_CYCLE_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => runBillingCycle().then(() => undefined),
  });
  registerRecurringJob({ name: "billing-cycle", queue: BILLING_CYCLE_QUEUE, everySeconds: BILLING_CYCLE_EVERY_SECONDS });
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
  // Templates reconciled with Meta: one account per job (it calls Graph), outside a transaction.
  registerJobHandler<{ accountId: string }>({
    queue: TEMPLATE_SYNC_QUEUE,
    batchSize: 1,
    maxAttempts: 8,
    concurrency: 1,
    transactional: false,
    run: (jobs) => runTemplateSyncJobs(jobs),
  });
  registerJobHandler<unknown>({
    queue: TEMPLATE_SYNC_ALL_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    async run() {
      await enqueueAllTemplateSyncs();
    },
  });
  registerRecurringJob({ name: "template-sync", queue: TEMPLATE_SYNC_ALL_QUEUE, everySeconds: TEMPLATE_SYNC_EVERY_SECONDS });
  // Customers' media downloaded into storage: Graph calls and a file write, outside a transaction;
  // one message per job, and a download that keeps failing is recorded on its message.
  registerJobHandler<{ messageId: string }>({
    queue: INBOUND_MEDIA_QUEUE,
    batchSize: 1,
    maxAttempts: INBOUND_MEDIA_ATTEMPTS + 1,
    concurrency: 2,
    leaseMs: 5 * 60_000,
    transactional: false,
    run: (jobs) => runInboundMediaJobs(jobs),
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
