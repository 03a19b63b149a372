import { registerMailQueueJob } from "../infrastructure/mail/job";
import { registerWebhooksInJobs } from "../adapters/webhooks-in/jobs";
import { registerAdminJobs } from "../domains/admin/jobs";
import { registerAnalyticsJobs } from "../domains/analytics/jobs";
import { registerAdJobs } from "../domains/ads/jobs";
import { registerAuthJobs, registerCodeMailJob } from "../domains/auth/jobs";
import { registerAutomationJobs } from "../domains/automations/jobs";
import { registerBillingJobs } from "../domains/billing/jobs";
import { registerPaymentRequestJobs } from "../domains/payments/requests/jobs";
import { registerCampaignJobs } from "../domains/campaigns/jobs";
import { registerContactJobs } from "../domains/contacts/jobs";
import { registerInboxJobs } from "../domains/inbox/jobs";
import { registerIntegrationJobs } from "../domains/integrations/jobs";
import { registerMessagingJobs } from "../domains/messaging/jobs";
import { registerNotificationJobs } from "../domains/notifications/jobs";
import { registerRevenueShareJobs } from "../domains/revenue-share/jobs";
import { registerTeamJobs } from "../domains/team/jobs";
import { registerTemplateJobs } from "../domains/templates/jobs";
import { registerShopJobs } from "../domains/shop/jobs";
import { registerSmsJobs } from "../domains/sms";
import { registerConversionJobs } from "../domains/ads";
import { registerWebhooksOutJobs } from "../domains/webhooks-out/jobs";
import { registerHousekeepingJob } from "./housekeeping-job";
import { registerRetentionJobs } from "./retention-job";

/**
 * The mail that requests queue instead of sending (decision 100): a code's e-mail, which the job
 * issues, and a written notice. Tests that sign people up without the other queues register these.
 */
export function registerMailJobHandlers() {
  registerCodeMailJob();
  registerMailQueueJob();
}

/**
 * Every job queue of the product, its handler and its recurring jobs; servers and tests call this
 * once. Each domain registers its own in its `jobs.ts` (as each connector does with its provider,
 * composition/integrations.ts); only housekeeping, which spans four domains, is registered here.
 * The order is the order `drainJobs` walks the queues in a round.
 */
export function registerJobHandlers() {
  registerMailJobHandlers();
  registerWebhooksInJobs();
  registerAuthJobs();
  registerInboxJobs();
  registerTeamJobs();
  registerWebhooksOutJobs();
  registerNotificationJobs();
  registerCampaignJobs();
  registerMessagingJobs();
  registerAdJobs();
  registerAutomationJobs();
  registerIntegrationJobs();
  registerRevenueShareJobs();
  registerContactJobs();
  registerHousekeepingJob();
  registerRetentionJobs();
  registerAdminJobs();
  registerBillingJobs();
  registerPaymentRequestJobs();
  registerAnalyticsJobs();
  registerTemplateJobs();
  registerShopJobs();
  registerSmsJobs();
  registerConversionJobs();
}
