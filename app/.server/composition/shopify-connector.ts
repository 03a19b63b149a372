import { registerProvider } from "../domains/integrations/providers";
import { shopifyProvider } from "../domains/integrations/shopify/provider";
import {
  processShopifyEvents,
  sendAbandonedCheckouts,
  SHOPIFY_ABANDONED_QUEUE,
  SHOPIFY_EVENT_QUEUE,
  SHOPIFY_SWEEP_EVERY_SECONDS,
  SHOPIFY_SWEEP_QUEUE,
  sweepAbandonedCheckouts,
} from "../domains/integrations/shopify/process";
import { markShopifyOrdersPaid } from "../domains/integrations/shopify/mark-paid";
import { SHOPIFY_MARK_PAID_QUEUE } from "../domains/integrations/shopify/order-payments";
import {
  runShopifyImports,
  SHOPIFY_IMPORT_ATTEMPTS,
  SHOPIFY_IMPORT_QUEUE,
  type ImportJobPayload,
} from "../domains/integrations/shopify/product-import";
import { registerJobHandler } from "../infrastructure/jobs/worker";
import { registerRecurringJob } from "../infrastructure/jobs/recurring";

/**
 * The Shopify connector (issue 45, decision 084): the provider (install, offline token, webhook
 * subscriptions), the job that turns a stored webhook into a template message, the delayed job for
 * abandoned checkouts and its recurring sweep.
 */
export function registerShopifyConnector() {
  registerProvider(shopifyProvider());
  // Each job names the events one intake commit stored; a claim takes several jobs, whose events are
  // read and decided together (process.ts). Each message goes in its own transaction (queueMessage's).
  registerJobHandler<{ ids: string[] }>({
    queue: SHOPIFY_EVENT_QUEUE,
    batchSize: 20,
    maxAttempts: 10,
    transactional: false,
    run: (jobs) => processShopifyEvents(jobs),
  });
  registerJobHandler<{ checkoutId: string }>({
    queue: SHOPIFY_ABANDONED_QUEUE,
    batchSize: 20,
    maxAttempts: 10,
    transactional: false,
    run: (jobs) => sendAbandonedCheckouts(jobs),
  });
  registerJobHandler({
    queue: SHOPIFY_SWEEP_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => sweepAbandonedCheckouts(),
  });
  // An order paid by M-Pesa marked paid in its shop (decision 142): retried while Shopify is throttled or down.
  registerJobHandler<{ id: string }>({
    queue: SHOPIFY_MARK_PAID_QUEUE,
    batchSize: 10,
    maxAttempts: 10,
    transactional: false,
    run: (jobs) => markShopifyOrdersPaid(jobs),
  });
  // "Import products from Shopify" (decision 147): one a job, up to 60 pages read, so a long lease;
  // a rerun after a crash saves by retailer id again and makes nothing twice.
  registerJobHandler<ImportJobPayload>({
    queue: SHOPIFY_IMPORT_QUEUE,
    batchSize: 1,
    maxAttempts: SHOPIFY_IMPORT_ATTEMPTS,
    leaseMs: 10 * 60_000,
    transactional: false,
    run: (jobs) => runShopifyImports(jobs),
  });
  registerRecurringJob({ name: SHOPIFY_SWEEP_QUEUE, queue: SHOPIFY_SWEEP_QUEUE, everySeconds: SHOPIFY_SWEEP_EVERY_SECONDS });
}
