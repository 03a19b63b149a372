import { sql } from "drizzle-orm";
import type { WEBHOOK_EVENTS } from "~/lib/developer";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

/** The job queue that delivers one event's attempt; its payload names the delivery and the `seq` it may act on. */
export const WEBHOOK_OUT_QUEUE = "webhooks-out.deliver";
export interface DeliveryJob {
  deliveryId: string;
  seq: number;
  /**
   * The delivery's created_at, so that the attempt reads and writes its one month's partition
   * (decision 169); a job queued before the table was partitioned has none and finds it by id alone.
   */
  createdAt?: string;
}

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
export type MessageEventType = Extract<WebhookEventType, `message.${string}`>;
/** Events about something other than one message: automations' (issue 44). */
export type OtherEventType = Exclude<WebhookEventType, MessageEventType>;

export interface MessageEvent {
  organizationId: string;
  type: MessageEventType;
  messageId: string;
}

/** An ISO 8601 UTC time in SQL, as JavaScript's toISOString writes it (null stays null). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The Standard Webhooks payload of a message event, `{ type, timestamp, data }`, built from the
 * messages row `m` (and its contact `c`) for the event type `e.type`. json_build_object keeps the key
 * order written here, which is also the order the body is sent in.
 */
const messagePayload = (typeExpression: string) => `json_build_object(
  'type', ${typeExpression},
  'timestamp', ${iso(`coalesce(case e.type when 'message.delivered' then m.delivered_at when 'message.read' then m.read_at
                                           when 'message.failed' then m.failed_at else m.sent_at end, now())`)},
  'data', json_build_object(
    'id', m.id,
    'direction', m.direction,
    'channel', m.channel,
    'status', m.status,
    'type', m.message_type,
    'from', case when m.direction = 'inbound' then coalesce(c.phone, c.wa_id, m.payload->>'from') end,
    'to', case when m.direction = 'outbound' then m.recipient_phone end,
    'waId', coalesce(m.recipient_wa_id, c.wa_id),
    'contactId', m.contact_id,
    'phoneNumberId', m.phone_number_id,
    'wamid', m.wamid,
    'body', m.body,
    'error', case when m.error_code is not null or m.error_title is not null
                  then json_build_object('code', m.error_code, 'title', m.error_title, 'details', m.error_details) end,
    -- Meta's pricing once a status reported it, else null: the API's rule (messaging/views.ts), one shape in both.
    'pricing', case when nullif(m.pricing_type, '') is not null or m.billable is not null
                    then json_build_object('category', m.pricing_category, 'type', m.pricing_type, 'billable', m.billable) end,
    'createdAt', ${iso("m.created_at")},
    'sentAt', ${iso("m.sent_at")},
    'deliveredAt', ${iso("m.delivered_at")},
    'readAt', ${iso("m.read_at")},
    'failedAt', ${iso("m.failed_at")}
  )
)`;

const MESSAGE_PAYLOAD = messagePayload("e.type");
/** A REST hook's payload names the event it subscribed to: message.status for delivered, read and failed. */
const HOOK_MESSAGE_PAYLOAD = messagePayload("h.event");
/** The REST hook event (issue 45) a message event is delivered to. */
const HOOK_EVENT_SQL = `case when e.type = 'message.received' then 'message.received' else 'message.status' end`;

/**
 * Queues message events for webhooks out, inside the caller's transaction, in one statement for the
 * whole batch: one delivery per event whose tenant has an endpoint that is enabled and subscribes to
 * the event's type (a tenant without one costs the join and nothing more), and one per REST hook
 * subscribed to it, each payload built from the messages row as it stands in that transaction, and
 * its first job. The same message's same event is queued once (per hook) however often and however
 * much later it is reported: its key is inserted into webhook_delivery_keys first (unique across
 * every month of the partitioned deliveries, decision 169), and a delivery written only for a key
 * that went in. Answers how many deliveries were queued.
 */
export async function enqueueMessageEvents(executor: Executor, events: MessageEvent[]): Promise<number> {
  if (!events.length) return 0;
  const result = await queryRows<unknown>(
    executor,
    sql`
    with e as (
      select * from unnest(${sql.param(events.map((e) => e.organizationId))}::uuid[],
                           ${sql.param(events.map((e) => e.type))}::text[],
                           ${sql.param(events.map((e) => e.messageId))}::uuid[]) as e(organization_id, type, message_id)
    ), wanted as materialized (
      -- One row a key (an event reported twice in the batch is one delivery; distinct takes nulls as equal), with its id.
      select distinct on (organization_id, message_id, event_type, hook_id)
             gen_random_uuid() as id, organization_id, event_type, message_id, hook_id, payload
      from (
        select e.organization_id, e.type as event_type, m.id as message_id, null::uuid as hook_id, ${sql.raw(MESSAGE_PAYLOAD)} as payload
        from e
        join webhook_endpoints w on w.organization_id = e.organization_id and w.disabled_at is null and e.type = any(w.events)
        join messages m on m.id = e.message_id and m.organization_id = e.organization_id
        left join contacts c on c.id = m.contact_id
        union all
        select e.organization_id, e.type, m.id, h.id, ${sql.raw(HOOK_MESSAGE_PAYLOAD)}
        from e
        join rest_hooks h on h.organization_id = e.organization_id and h.event = ${sql.raw(HOOK_EVENT_SQL)}
        join messages m on m.id = e.message_id and m.organization_id = e.organization_id
        left join contacts c on c.id = m.contact_id
      ) candidates
    ), keyed as (
      -- Either unique index (the endpoint's, hook_id null, or the hook's) turns a repeat away.
      insert into webhook_delivery_keys (delivery_id, organization_id, hook_id, message_id, event_type, created_at)
      select id, organization_id, hook_id, message_id, event_type, now() from wanted
      on conflict do nothing
      returning delivery_id, created_at
    ), queued as (
      insert into webhook_deliveries (id, organization_id, event_type, message_id, hook_id, payload, next_attempt_at, created_at)
      select w.id, w.organization_id, w.event_type, w.message_id, w.hook_id, w.payload, now(), k.created_at
      from keyed k join wanted w on w.id = k.delivery_id
      returning id, created_at
    )
    insert into jobs (queue, payload)
    select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', d.id, 'seq', 0, 'createdAt', d.created_at) from queued d
    returning id`,
  );
  return result.length;
}

/**
 * Queues an event that is not about one message (a conversation handed to a person, a flow
 * completed), inside the caller's transaction: one delivery per enabled endpoint
 * of the tenant that subscribes to its type and one per REST hook subscribed to it, the Standard
 * Webhooks payload `{ type, timestamp, data }` with `data` as given, and its first job. Answers how
 * many deliveries were queued.
 */
export async function emitWebhookEvent(
  executor: Executor,
  event: { organizationId: string; type: OtherEventType; data: Record<string, unknown> },
): Promise<number> {
  const payload = { type: event.type, timestamp: new Date().toISOString(), data: event.data };
  const result = await queryRows<unknown>(
    executor,
    sql`
    with queued as (
      insert into webhook_deliveries (organization_id, event_type, hook_id, payload, next_attempt_at)
      select w.organization_id, ${event.type}::text, null::uuid, ${JSON.stringify(payload)}::json, now()
      from webhook_endpoints w
      where w.organization_id = ${event.organizationId} and w.disabled_at is null and ${event.type}::text = any(w.events)
      union all
      select h.organization_id, ${event.type}::text, h.id, ${JSON.stringify(payload)}::json, now()
      from rest_hooks h where h.organization_id = ${event.organizationId} and h.event = ${event.type}::text
      returning id, created_at
    )
    insert into jobs (queue, payload)
    select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', queued.id, 'seq', 0, 'createdAt', queued.created_at) from queued
    returning id`,
  );
  return result.length;
}

/** A contact just made, as a contact.created hook sends it. */
export interface CreatedContact {
  organizationId: string;
  id: string;
  name: string | null;
  phone: string | null;
  waId: string | null;
}

/**
 * contact.created for REST hooks (issue 45), inside the writer's transaction, in one statement for
 * the batch: one delivery per hook subscribed to it (an organisation without one costs the join).
 */
export async function enqueueContactsCreated(executor: Executor, created: CreatedContact[]): Promise<number> {
  if (!created.length) return 0;
  const timestamp = new Date().toISOString();
  const payloads = created.map((c) =>
    JSON.stringify({ type: "contact.created", timestamp, data: { id: c.id, name: c.name, phone: c.phone, waId: c.waId } }),
  );
  const result = await queryRows<unknown>(
    executor,
    sql`
    with e as (
      select * from unnest(${sql.param(created.map((c) => c.organizationId))}::uuid[], ${sql.param(payloads)}::text[]) as e(organization_id, payload)
    ), queued as (
      insert into webhook_deliveries (organization_id, event_type, hook_id, payload, next_attempt_at)
      select e.organization_id, 'contact.created', h.id, e.payload::json, now()
      from e join rest_hooks h on h.organization_id = e.organization_id and h.event = 'contact.created'
      returning id, created_at
    )
    insert into jobs (queue, payload)
    select ${WEBHOOK_OUT_QUEUE}, jsonb_build_object('deliveryId', queued.id, 'seq', 0, 'createdAt', queued.created_at) from queued
    returning id`,
  );
  return result.length;
}
