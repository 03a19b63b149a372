import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import type { Job } from "../../infrastructure/jobs/queue";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { sendMail } from "../../infrastructure/mail/transport";
import { webhookDisabledMail } from "../../infrastructure/mail/messages";
import { ownersToWrite } from "../auth";
import { resolveWebhookTarget, systemResolver, type Resolver } from "./endpoint";
import { postToAddress, type SendOutcome } from "./send";
import { signatureHeader, signingSecrets } from "./secret";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { WEBHOOK_OUT_QUEUE, type DeliveryJob } from "./events";
import { notifyWebhookFailing } from "../notifications";

/**
 * Seconds to wait after each failed attempt of a round: the Standard Webhooks reference schedule
 * (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), carried on with 10 h until three days are covered.
 * Thirteen attempts over 72 h 35 min; after the last one the delivery gives up.
 */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000, 18_000] as const;
/** An endpoint with no success since its first failure this many days ago is disabled. */
export const DISABLE_AFTER_DAYS = 3;
/**
 * The owners' e-mail when an endpoint is disabled, before notifications (decision 031) sent it by the
 * organisation's rules: the queue stays so that jobs queued before an upgrade are still sent.
 */
export const WEBHOOK_DISABLED_MAIL_QUEUE = "webhooks-out.disabled-mail";
/** An endpoint failing this long with no success notifies the owners and admins (once a failing spell). */
export const FAILING_NOTICE_MINUTES = 60;

export interface DeliveryOptions {
  /** DNS for the delivery-time check; tests give their own. The connection goes to what it answered. */
  resolve?: Resolver;
}

/** The job handler: each job is one attempt of one delivery, run side by side. */
export async function runDeliveryJobs(jobs: Job<DeliveryJob>[], options: DeliveryOptions = {}) {
  await Promise.all(jobs.map((job) => deliverOnce(job.payload, options)));
}

interface PendingDelivery {
  id: string;
  /** As text, exact to the microsecond: the updates name the row's partition by it. */
  created_at: string;
  organization_id: string;
  event_type: string;
  body: string;
  step: number;
  url: string | null;
  disabled: boolean | null;
  hook_id: string | null;
  hook_secret: string | null;
}

/**
 * One attempt: nothing when the job is stale (the delivery moved on: delivered, redelivered, another
 * attempt recorded). The endpoint's URL is checked again against the SSRF rules and its addresses
 * resolved afresh; the request goes to the first of exactly those addresses.
 */
export async function deliverOnce(job: DeliveryJob, options: DeliveryOptions = {}) {
  // A REST hook's delivery goes to the hook's URL (a removed hook took its deliveries with it).
  const [row] = await queryRows<PendingDelivery>(
    db(),
    sql`
    select d.id, d.created_at::text as created_at, d.organization_id, d.event_type, d.payload::text as body, d.step, d.hook_id, h.secret_encrypted as hook_secret,
           case when d.hook_id is null then w.url else h.target_url end as url,
           case when d.hook_id is null then w.disabled_at is not null else false end as disabled
    from webhook_deliveries d
    left join webhook_endpoints w on w.organization_id = d.organization_id and d.hook_id is null
    left join rest_hooks h on h.id = d.hook_id
    where d.id = ${job.deliveryId} and d.seq = ${job.seq} and d.status = 'pending'
      ${job.createdAt ? sql`and d.created_at = ${job.createdAt}::timestamptz` : sql``}`,
  );
  if (!row) return;
  if (!row.url || row.disabled) {
    const why = row.url ? "Not sent: the endpoint is disabled." : "Not sent: there is no webhook endpoint any more.";
    await db().execute(sql`
      update webhook_deliveries set status = 'failed', error = ${why}, next_attempt_at = null, seq = seq + 1
      where id = ${row.id} and created_at = ${row.created_at}::timestamptz and seq = ${job.seq}`);
    return;
  }
  const outcome = await attempt(row, row.url, options.resolve ?? systemResolver);
  await recordOutcome(row, job.seq, outcome);
}

function attempt(row: PendingDelivery, url: string, resolve: Resolver): Promise<SendOutcome> {
  if (row.hook_secret)
    return postSignedWith({ current: decryptSecret(row.hook_secret), previous: null }, url, `msg_${row.id}`, row.body, resolve);
  return postSigned(row.organization_id, url, `msg_${row.id}`, row.body, resolve);
}

/**
 * POSTs a JSON body to a URL as a Standard Webhooks message signed with the organisation's webhook
 * secrets, after the SSRF checks (the address connected to is one the checks passed). Webhooks out
 * and automations' webhook calls (issue 44) send this way.
 */
export async function postSigned(
  organizationId: string,
  url: string,
  id: string,
  body: string,
  resolve: Resolver = systemResolver,
): Promise<SendOutcome> {
  const target = await resolveWebhookTarget(url, resolve);
  if (!target.ok)
    return { status: null, body: null, error: `Not sent: ${target.message.charAt(0).toLowerCase()}${target.message.slice(1)}` };
  const secrets = await signingSecrets(organizationId);
  if (!secrets) return { status: null, body: null, error: "Not sent: there is no signing secret." };
  return sendSigned(target, secrets, id, body);
}

/** postSigned with the secrets given: a REST hook signs with its own (issue 45). */
export async function postSignedWith(
  secrets: { current: string; previous: string | null },
  url: string,
  id: string,
  body: string,
  resolve: Resolver = systemResolver,
): Promise<SendOutcome> {
  const target = await resolveWebhookTarget(url, resolve);
  if (!target.ok)
    return { status: null, body: null, error: `Not sent: ${target.message.charAt(0).toLowerCase()}${target.message.slice(1)}` };
  return sendSigned(target, secrets, id, body);
}

function sendSigned(
  target: { url: string; addresses: string[] },
  secrets: { current: string; previous: string | null },
  id: string,
  body: string,
) {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": `Jumbe-Webhooks/1.0 (+${env().APP_URL}/developers)`,
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(id, timestamp, body, [secrets.current, ...(secrets.previous ? [secrets.previous] : [])]),
  };
  return postToAddress(new URL(target.url), target.addresses[0]!, headers, body);
}

/**
 * Writes the attempt's outcome and, on a failure with retries left, the next attempt's job, in one
 * transaction; then the endpoint's record: a success clears its failing time, a failure starts it,
 * and one that has lasted DISABLE_AFTER_DAYS disables the endpoint and mails the owners.
 */
async function recordOutcome(row: PendingDelivery, seq: number, outcome: SendOutcome) {
  const delivered = outcome.error === null && outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const step = row.step + 1;
  const delay = delivered ? undefined : RETRY_SCHEDULE_SECONDS[step - 1];
  const status = delivered ? "delivered" : delay === undefined ? "failed" : "pending";
  const error = delivered ? null : (outcome.error ?? (outcome.status !== null ? `HTTP ${outcome.status}` : "No answer."));
  const disabled = await db().transaction(async (tx) => {
    const result = await queryRows<unknown>(
      tx,
      sql`
      with d as (
        update webhook_deliveries set attempts = attempts + 1, step = ${step}, seq = seq + 1, last_attempt_at = now(),
          response_status = ${outcome.status}, response_body = ${outcome.body}, error = ${error}, status = ${status},
          delivered_at = case when ${delivered} then now() else delivered_at end,
          next_attempt_at = ${delay === undefined ? null : sql`now() + make_interval(secs => ${delay})`}
        where id = ${row.id} and created_at = ${row.created_at}::timestamptz and seq = ${seq}
        returning id, seq, status, next_attempt_at, created_at
      ), retry as (
        insert into jobs (queue, payload, run_at)
        select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', d.id, 'seq', d.seq, 'createdAt', d.created_at), d.next_attempt_at
        from d where d.status = 'pending'
      )
      select id from d`,
    );
    // Another attempt or a redelivery got there first: its outcome stands.
    if (!result.length) return null;
    if (row.hook_id) {
      await recordHookOutcome(tx, row.hook_id, outcome.status);
      return null;
    }
    if (delivered) {
      await tx.execute(
        sql`update webhook_endpoints set failing_since = null where organization_id = ${row.organization_id} and failing_since is not null`,
      );
      return null;
    }
    const [endpoint] = await queryRows<{ url: string; just_disabled: boolean; failing_since: string; failing_long: boolean }>(
      tx,
      sql`
        with old as (
          select organization_id, failing_since, disabled_at from webhook_endpoints where organization_id = ${row.organization_id} for update
        )
        update webhook_endpoints w set failing_since = coalesce(old.failing_since, now()),
          disabled_at = case when old.disabled_at is null and old.failing_since <= now() - make_interval(days => ${DISABLE_AFTER_DAYS})
                             then now() else old.disabled_at end
        from old where w.organization_id = old.organization_id
        returning w.url, (old.disabled_at is null and w.disabled_at is not null) as just_disabled, w.failing_since::text as failing_since,
          (old.disabled_at is null and old.failing_since <= now() - make_interval(mins => ${FAILING_NOTICE_MINUTES})) as failing_long`,
    );
    // Kept failing: the owners and admins hear of it an hour in, and again when it is disabled (with
    // that e-mail's words), by the organisation's notification rules (decision 031).
    if (endpoint && (endpoint.failing_long || endpoint.just_disabled))
      await notifyWebhookFailing(tx, {
        organizationId: row.organization_id,
        url: endpoint.url,
        failingSince: endpoint.failing_since,
        disabled: endpoint.just_disabled,
      });
    if (!endpoint?.just_disabled) return null;
    return endpoint.url;
  });
  if (row.hook_id && outcome.status === 410) await removeGoneHook(row.organization_id, row.hook_id);
  if (disabled)
    await recordActivity({
      organizationId: row.organization_id,
      type: "settings",
      status: "error",
      action: "Webhook endpoint disabled",
      details: englishOf(words("app_activity_detail_webhook_disabled", { url: disabled, days: DISABLE_AFTER_DAYS })),
    });
}

/** A REST hook's last delivery, for the Integrations page (its failures never disable anything). */
async function recordHookOutcome(tx: Executor, hookId: string, status: number | null) {
  await tx.execute(sql`
    update rest_hooks set last_delivery_at = now(), last_delivery_status = ${status === null ? null : String(status)} where id = ${hookId}`);
}

/**
 * 410 Gone from a REST hook's target: the subscriber says it is gone for good (Zapier's rule), so the
 * hook is removed, and its deliveries with it (no retry follows).
 */
async function removeGoneHook(organizationId: string, hookId: string) {
  const [removed] = await queryRows<{ event: string; target_url: string }>(
    db(),
    sql`delete from rest_hooks where id = ${hookId} and organization_id = ${organizationId} returning event, target_url`,
  );
  if (!removed) return;
  await recordActivity({
    organizationId,
    type: "settings",
    status: "warning",
    action: "REST hook removed by its target",
    details: `${removed.event} → ${removed.target_url}`,
  });
}

/** Tells the organisation's owners that their endpoint was disabled, each in their own language. */
export async function sendDisabledMails(jobs: Job<{ organizationId: string; url: string }>[]) {
  for (const { payload } of jobs) {
    for (const owner of await ownersToWrite(payload.organizationId))
      await sendMail(webhookDisabledMail(owner.email, payload.url, owner.locale));
  }
}

/** A pending delivery whose attempt is this late has lost its job (see requeueLostDeliveries). */
export const LOST_AFTER_MINUTES = 15;

/**
 * Deliveries still pending well after their attempt was due, with no job waiting to make it: the
 * job gave up after the queue's own retries (the database was unreachable each time), so nothing
 * would ever try again. Each gets a job for its current `seq`; a job that turns up after all finds
 * the row moved on and does nothing. Run by housekeeping; answers how many were queued again.
 */
export async function requeueLostDeliveries(limit = 500): Promise<number> {
  const result = await queryRows<{ id: string | number }>(
    db(),
    sql`
    insert into jobs (queue, payload)
    select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', d.id, 'seq', d.seq, 'createdAt', d.created_at)
    from webhook_deliveries d
    where d.status = 'pending' and d.next_attempt_at < now() - make_interval(mins => ${LOST_AFTER_MINUTES})
      and not exists (
        select 1 from jobs j
        where j.queue = ${WEBHOOK_OUT_QUEUE} and j.finished_at is null and j.failed_at is null
          and j.payload ->> 'deliveryId' = d.id::text)
    order by d.next_attempt_at
    limit ${limit}
    returning id`,
  );
  return result.length;
}
