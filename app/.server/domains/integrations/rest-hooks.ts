import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { encryptSecret } from "../../infrastructure/security/crypto";
import { Refusal } from "../../infrastructure/refusal";
import { REST_HOOK_EVENTS } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import { checkWebhookUrl, type Resolver, newWebhookSecret } from "../webhooks-out";
import type { IntegrationActor } from "./connections";
import { m } from "~/paraglide/messages";

export { REST_HOOK_EVENTS };
export type RestHookEvent = (typeof REST_HOOK_EVENTS)[number];

/** The most hooks one organisation may hold (a Zap or a Make scenario each holds one). */
export const REST_HOOKS_MAX = 50;

export interface RestHookView {
  id: string;
  event: RestHookEvent;
  targetUrl: string;
  createdAt: string;
  lastDeliveryAt: string | null;
  lastDeliveryStatus: number | null;
}

interface HookRow {
  id: string;
  event: RestHookEvent;
  target_url: string;
  created_at: Date | string;
  last_delivery_at: Date | string | null;
  last_delivery_status: string | null;
}

const view = (row: HookRow): RestHookView => ({
  id: row.id,
  event: row.event,
  targetUrl: row.target_url,
  createdAt: new Date(row.created_at).toISOString(),
  lastDeliveryAt: row.last_delivery_at === null ? null : new Date(row.last_delivery_at).toISOString(),
  lastDeliveryStatus: row.last_delivery_status === null ? null : Number(row.last_delivery_status),
});

const refuse = (status: 404 | 409 | 422, code: string, message: string, field?: string) =>
  new Refusal({ domain: "integration", status, code, message, field });

/** The organisation's hooks, oldest first. */
export async function listRestHooks(organizationId: string): Promise<RestHookView[]> {
  const rows = await queryRows<HookRow>(
    db(),
    sql`select id, event, target_url, created_at, last_delivery_at, last_delivery_status
        from rest_hooks where organization_id = ${organizationId} order by created_at, id`,
  );
  return rows.map(view);
}

/**
 * Subscribes a target URL to an event (Zapier's REST hook subscribe): the URL passes webhooks out's
 * checks (https, no credentials, public addresses only); the hook gets its own signing secret, answered
 * once. The same URL and event again is a 409; past REST_HOOKS_MAX a 409 too.
 */
export async function subscribeRestHook(
  actor: { organizationId: string; apiKeyId?: string | null },
  input: { targetUrl: string; event: RestHookEvent },
  resolve?: Resolver,
): Promise<RestHookView & { secret: string }> {
  const checked = await checkWebhookUrl(input.targetUrl, resolve);
  if (!checked.ok) throw refuse(422, "invalid_hook", checked.message, "targetUrl");
  const secret = newWebhookSecret();
  const [row] = await queryRows<HookRow>(
    db(),
    sql`
    insert into rest_hooks (organization_id, event, target_url, secret_encrypted, api_key_id)
    select ${actor.organizationId}, ${input.event}, ${checked.url}, ${encryptSecret(secret)}, ${actor.apiKeyId ?? null}
    where (select count(*) from rest_hooks where organization_id = ${actor.organizationId}) < ${REST_HOOKS_MAX}
    on conflict (organization_id, event, target_url) do nothing
    returning id, event, target_url, created_at, last_delivery_at, last_delivery_status`,
  );
  if (!row) {
    const [{ count }] = (await queryRows<{ count: number }>(
      db(),
      sql`select count(*)::int as count from rest_hooks where organization_id = ${actor.organizationId}`,
    )) as [{ count: number }];
    if (count >= REST_HOOKS_MAX) throw refuse(409, "hook_limit", m.integrations_hook_limit({ max: REST_HOOKS_MAX }));
    throw refuse(409, "hook_exists", m.integrations_hook_exists(), "targetUrl");
  }
  await recordActivity({
    organizationId: actor.organizationId,
    type: "settings",
    status: "success",
    action: "REST hook subscribed",
    details: `${row.event} → ${row.target_url}`,
  });
  return { ...view(row), secret };
}

/** Unsubscribes one hook (its pending deliveries go with it). 404 for an unknown id or another's. */
export async function unsubscribeRestHook(organizationId: string, hookId: string) {
  const [row] = await queryRows<{ event: string; target_url: string }>(
    db(),
    sql`delete from rest_hooks where id = ${hookId} and organization_id = ${organizationId} returning event, target_url`,
  );
  if (!row) throw refuse(404, "not_found", m.integrations_hook_not_found());
  await recordActivity({
    organizationId,
    type: "settings",
    status: "success",
    action: "REST hook unsubscribed",
    details: `${row.event} → ${row.target_url}`,
  });
}

/** The REST hooks card: how many, and the latest delivery's time and answer. */
export async function restHooksSummary(organizationId: string) {
  const [row] = await queryRows<{ count: number; last_at: Date | string | null; last_status: string | null }>(
    db(),
    sql`
    select count(*)::int as count, max(last_delivery_at) as last_at,
           (array_agg(last_delivery_status order by last_delivery_at desc nulls last))[1] as last_status
    from rest_hooks where organization_id = ${organizationId}`,
  );
  return {
    count: row?.count ?? 0,
    lastDeliveryAt: row?.last_at ? new Date(row.last_at).toISOString() : null,
    lastDeliveryStatus: row?.last_status ? Number(row.last_status) : null,
  };
}

/** Disconnecting REST hooks from the page: every hook of the organisation removed. Answers how many. */
export async function removeAllRestHooks(actor: IntegrationActor): Promise<number> {
  const removed = await queryRows<{ id: string }>(
    db(),
    sql`delete from rest_hooks where organization_id = ${actor.organizationId} returning id`,
  );
  if (!removed.length) throw refuse(404, "not_connected", m.integrations_not_connected());
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "REST hooks removed",
    details: `${removed.length}`,
    meta: actor.meta,
  });
  return removed.length;
}
