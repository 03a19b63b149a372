import { sql } from "drizzle-orm";
import { pruneHourlyContacts } from "../analytics";
import { INBOX_EVENT_RETENTION_HOURS, IDEMPOTENCY_HOURS } from "../messaging";
import { deleteExpiredSessions, deleteStaleCodes, deleteExpiredChallenges } from "../auth";
import { deleteStaleRateLimits } from "../../infrastructure/security/rate-limit";
import { db } from "../../infrastructure/db/client";
import { countAffected } from "../../infrastructure/db/query";
import { deleteUnattachedSamples } from "../templates";
import { pruneContactTags } from "../contacts";

/** How long rows that only record the past are kept (decision 015). */
export const RETENTION_DAYS = {
  /** Webhook deliveries, byte for byte, once processed: long enough to investigate a dispute or replay. */
  webhookEvents: 30,
  /** Public API usage per minute: the Developers page shows 30 days; a quarter leaves room for trends. */
  apiUsage: 90,
  /** Jobs that finished. */
  finishedJobs: 7,
  /** Jobs that gave up: kept longer, for the admin console's alerts and investigation. */
  failedJobs: 30,
  /** Graph calls other than message sends (the admin console's View Logs). */
  graphCalls: 30,
} as const;

export const HOUSEKEEPING_QUEUE = "housekeeping";
/** Every ten minutes, once across all instances (a recurring job). */
export const HOUSEKEEPING_EVERY_SECONDS = 10 * 60;

/** Deletes at most this many rows per table and sweep, so one sweep never holds long locks. */
const BATCH = 5000;

async function deleteInBatches(statement: () => ReturnType<typeof sql>) {
  let total = 0;
  for (;;) {
    const n = await countAffected(db(), statement());
    total += n;
    if (n < BATCH) return total;
  }
}

/** Expired sessions, dead codes, old rate-limit windows, and rows past their retention. Answers counts. */
export async function sweepExpiredData() {
  await deleteExpiredSessions();
  await deleteExpiredChallenges();
  await deleteStaleCodes();
  await deleteStaleRateLimits();
  const webhookEvents = await deleteInBatches(
    () => sql`delete from webhook_events where id in (
      select id from webhook_events where processed_at is not null and received_at < now() - make_interval(days => ${RETENTION_DAYS.webhookEvents}) limit ${BATCH})`,
  );
  const apiUsage = await deleteInBatches(
    () => sql`delete from api_usage_minutely where (organization_id, minute) in (
      select organization_id, minute from api_usage_minutely where minute < now() - make_interval(days => ${RETENTION_DAYS.apiUsage}) limit ${BATCH})`,
  );
  const jobs = await deleteInBatches(
    () => sql`delete from jobs where id in (
      select id from jobs where (finished_at < now() - make_interval(days => ${RETENTION_DAYS.finishedJobs}))
                             or (failed_at < now() - make_interval(days => ${RETENTION_DAYS.failedJobs})) limit ${BATCH})`,
  );
  // Webhooks out's deliveries are logs of the organisation's: its own log retention removes them (retention.ts).
  const graphCalls = await deleteInBatches(
    () => sql`delete from graph_call_log where id in (
      select id from graph_call_log where created_at < now() - make_interval(days => ${RETENTION_DAYS.graphCalls}) limit ${BATCH})`,
  );
  // An Idempotency-Key answers its first result for 24 hours only.
  const idempotencyKeys = await deleteInBatches(
    () => sql`delete from api_idempotency where (organization_id, key) in (
      select organization_id, key from api_idempotency where created_at < now() - make_interval(hours => ${IDEMPOTENCY_HOURS}) limit ${BATCH})`,
  );
  // A person reached more than 24 hours ago no longer counts against the messaging limit.
  const messagingLimitRecipients = await deleteInBatches(
    () => sql`delete from messaging_limit_recipients where (portfolio_id, recipient) in (
      select portfolio_id, recipient from messaging_limit_recipients where reached_at < now() - interval '24 hours' limit ${BATCH})`,
  );
  // The inbox's change log replays to browsers that were away a little while; older rows serve nobody.
  const inboxEvents = await deleteInBatches(
    () => sql`delete from inbox_events where id in (
      select id from inbox_events where created_at < now() - make_interval(hours => ${INBOX_EVENT_RETENTION_HOURS}) limit ${BATCH})`,
  );
  // Presence a member's stream stopped refreshing (the browser went away without a goodbye).
  await db().execute(sql`delete from inbox_presence where updated_at < now() - interval '10 minutes'`);
  // Delivery reports for AT ids no send of Jumbe's stored within two days (sms_early_reports).
  const smsEarlyReports = await deleteInBatches(
    () => sql`delete from sms_early_reports where (organization_id, at_message_id, status) in (
      select organization_id, at_message_id, status from sms_early_reports where received_at < now() - interval '2 days' limit ${BATCH})`,
  );
  const templateSamples = await deleteUnattachedSamples();
  // Tags no contact carries any more (a deleted or erased contact, a merge) leave the tag filter.
  const contactTags = await pruneContactTags();
  await pruneHourlyContacts();
  return {
    contactTags,
    inboxEvents,
    webhookEvents,
    apiUsage,
    jobs,
    graphCalls,
    idempotencyKeys,
    messagingLimitRecipients,
    templateSamples,
    smsEarlyReports,
  };
}
