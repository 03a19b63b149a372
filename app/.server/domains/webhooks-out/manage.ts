import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { wakeWorkers } from "../../infrastructure/jobs/worker";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser } from "../auth";
import { WEBHOOK_OUT_QUEUE } from "./events";

/** How many deliveries the Developers page lists: the most recent, newest first. */
export const RECENT_DELIVERIES = 20;
/** The `type` of the test event the page sends. */
export const TEST_EVENT = "webhook.test";

export interface DeliveryRow {
  id: string;
  eventType: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

const isoOrNull = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The tenant's most recent deliveries, in one statement. */
export async function recentDeliveries(organizationId: string): Promise<DeliveryRow[]> {
  const rows = await queryRows<{
    id: string;
    event_type: string;
    status: DeliveryRow["status"];
    attempts: number;
    created_at: Date | string;
    last_attempt_at: Date | string | null;
    next_attempt_at: Date | string | null;
    response_status: number | null;
    response_body: string | null;
    error: string | null;
  }>(
    db(),
    sql`
    select id, event_type, status, attempts, created_at, last_attempt_at, next_attempt_at, response_status, response_body, error
    from webhook_deliveries where organization_id = ${organizationId} and hook_id is null
    order by created_at desc nulls last, id desc nulls last limit ${RECENT_DELIVERIES}`,
  );
  return rows.map((row) => ({
    id: row.id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    createdAt: new Date(row.created_at).toISOString(),
    lastAttemptAt: isoOrNull(row.last_attempt_at),
    nextAttemptAt: row.status === "pending" ? isoOrNull(row.next_attempt_at) : null,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    error: row.error,
  }));
}

/**
 * Queues a `webhook.test` event for the tenant's endpoint, delivered like every other event. Null
 * when there is no endpoint or it is disabled.
 */
export async function sendTestEvent(current: CurrentUser, meta: RequestMeta): Promise<string | null> {
  const organizationId = current.organization.id;
  const [queued] = await queryRows<{ id: string }>(
    db(),
    sql`
    with d as (
      insert into webhook_deliveries (organization_id, event_type, payload, next_attempt_at)
      select w.organization_id, ${TEST_EVENT},
             json_build_object('type', ${TEST_EVENT}::text,
                               'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                               'data', json_build_object('organizationId', w.organization_id,
                                                         'message', 'A test event from Jumbe: your endpoint is receiving webhooks.'::text)),
             now()
      from webhook_endpoints w where w.organization_id = ${organizationId} and w.disabled_at is null
      returning id, created_at
    ), job as (
      insert into jobs (queue, payload)
      select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', d.id, 'seq', 0, 'createdAt', d.created_at) from d
    )
    select id from d`,
  );
  if (!queued) return null;
  wakeWorkers();
  await recordActivity({
    organizationId,
    userId: current.user.id,
    type: "settings",
    status: "success",
    action: "Webhook test event sent",
    details: `Delivery ${queued.id}`,
    meta,
  });
  return queued.id;
}

/**
 * Sends one of the tenant's deliveries again now, as a new round of the retry schedule with the same
 * `webhook-id` (receivers deduplicate on it). `not_found` for another tenant's or an unknown id;
 * `disabled` when the endpoint is missing or disabled.
 */
export async function redeliver(current: CurrentUser, deliveryId: string, meta: RequestMeta) {
  const organizationId = current.organization.id;
  const outcome = await db().transaction(async (tx) => {
    // The page names a delivery by its id alone: this lookup reads each month's partition's index
    // once; the update and the job then name its month (decision 169).
    const [found] = await queryRows<{ event_type: string; sendable: boolean; created_at: string }>(
      tx,
      sql`
        select d.event_type, w.organization_id is not null and w.disabled_at is null as sendable, d.created_at::text as created_at
        from webhook_deliveries d left join webhook_endpoints w on w.organization_id = d.organization_id
        where d.id = ${deliveryId} and d.organization_id = ${organizationId} and d.hook_id is null
        for update of d`,
    );
    if (!found) return "not_found" as const;
    if (!found.sendable) return "disabled" as const;
    await tx.execute(sql`
      with d as (
        update webhook_deliveries set status = 'pending', step = 0, seq = seq + 1, next_attempt_at = now()
        where id = ${deliveryId} and created_at = ${found.created_at}::timestamptz and organization_id = ${organizationId}
        returning id, seq, created_at
      )
      insert into jobs (queue, payload)
      select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', d.id, 'seq', d.seq, 'createdAt', d.created_at) from d`);
    return found.event_type;
  });
  if (outcome === "not_found" || outcome === "disabled") return outcome;
  wakeWorkers();
  await recordActivity({
    organizationId,
    userId: current.user.id,
    type: "settings",
    status: "success",
    action: "Webhook event redelivered",
    details: englishOf(words("app_activity_detail_webhook_redelivered", { event: outcome, id: deliveryId })),
    meta,
  });
  return "queued" as const;
}

/** Turns a disabled endpoint back on with a clean record. */
export async function enableEndpoint(current: CurrentUser, meta: RequestMeta) {
  const organizationId = current.organization.id;
  const [row] = await queryRows<{ url: string; was_disabled: boolean }>(
    db(),
    sql`
    with old as (select organization_id, disabled_at from webhook_endpoints where organization_id = ${organizationId} for update)
    update webhook_endpoints w set disabled_at = null, failing_since = null
    from old where w.organization_id = old.organization_id
    returning w.url, old.disabled_at is not null as was_disabled`,
  );
  if (!row) return "missing" as const;
  if (!row.was_disabled) return "enabled" as const;
  await recordActivity({
    organizationId,
    userId: current.user.id,
    type: "settings",
    status: "success",
    action: "Webhook endpoint re-enabled",
    details: row.url,
    meta,
  });
  return "reenabled" as const;
}
