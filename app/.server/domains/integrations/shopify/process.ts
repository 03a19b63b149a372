import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { activityLogs } from "../../../infrastructure/db/schema";
import { enqueueJob, type Job } from "../../../infrastructure/jobs/queue";
import { isRefusal } from "../../../infrastructure/refusal";
import { queueMessage } from "../../messaging/queue";
import { customerPhoneOf, fieldValue, isShopifyField, type ShopifyEventType } from "./fields";
import { templateVariables } from "./templates";
import { SHOPIFY_EVENT_QUEUE } from "./intake";
import { m } from "~/paraglide/messages";
import { SHOPIFY_REASONS } from "../../activity/stored-inputs";
import { englishOf, words, type Said } from "../../../infrastructure/words/said";

export { SHOPIFY_EVENT_QUEUE };
/** Due abandoned checkouts: a delayed job per checkout at its time. */
export const SHOPIFY_ABANDONED_QUEUE = "shopify.abandoned-checkouts";
/** The sweep that catches a due checkout whose job was lost (a restore from backup, a job given up). */
export const SHOPIFY_SWEEP_QUEUE = "shopify.abandoned-sweep";
export const SHOPIFY_SWEEP_EVERY_SECONDS = 300;

const NAME = "Shopify";

type Json = Record<string, unknown>;

interface EventRow {
  id: string;
  organization_id: string;
  shop: string;
  topic: string;
  event_type: ShopifyEventType | null;
  payload: Json;
  reference: string | null;
}

/** Why no message went: stored on the event, shown on the page in words. */
export type SkipReason =
  | "no_mapping"
  | "turned_off"
  | "template_unavailable"
  | "no_phone"
  | "opted_out"
  | "not_opted_in"
  | "insufficient_balance"
  | "send_refused";

/** Thrown inside queueMessage's transaction when the event already has its outcome (a retry): nothing is queued. */
class AlreadyDone extends Error {}

/** The event job: each stored delivery processed once (a retried job finds its outcome and stops). */
export async function processShopifyEvents(jobs: Job<{ ids: string[] }>[]) {
  for (const job of jobs) for (const id of job.payload.ids ?? []) await processShopifyEvent(id);
}

export async function processShopifyEvent(id: string) {
  const [row] = await queryRows<EventRow>(
    db(),
    sql`select id, organization_id, shop, topic, event_type, payload, reference from shopify_events where id = ${id} and status = 'received'`,
  );
  if (!row) return;
  if (row.topic === "app/uninstalled") return appUninstalled(row);
  switch (row.event_type) {
    case "checkout_abandoned":
      return checkoutSeen(row);
    case "order_created":
      await cancelCheckoutsOf(row);
      return sendFor(row, "order_created", row.payload, ["received"]);
    case "order_fulfilled":
      return sendFor(row, "order_fulfilled", row.payload, ["received"]);
    default:
      return finish(db(), row.id, "ignored", "topic_not_used");
  }
}

async function finish(
  executor: Executor,
  id: string,
  status: "skipped" | "cancelled" | "ignored" | "waiting",
  reason: string | null,
  phone?: string | null,
) {
  await executor.execute(sql`
    update shopify_events set status = ${status}, reason = ${reason}, phone = coalesce(${phone ?? null}, phone), processed_at = now()
    where id = ${id} and status in ('received', 'waiting')`);
}

/** An event's outcome in the log, as a sentence the log says again in its reader's language. */
async function activity(executor: Executor, organizationId: string, status: "success" | "warning", said: Said) {
  await executor.insert(activityLogs).values({
    organizationId,
    type: "settings",
    status,
    action: "Integration synced",
    details: englishOf(said),
  });
}

interface MappingRow {
  enabled: boolean;
  variables: string[];
  delay_minutes: number;
  name: string | null;
  language: string | null;
  status: string | null;
  components: unknown;
}

async function mappingOf(organizationId: string, eventType: ShopifyEventType) {
  const [row] = await queryRows<MappingRow>(
    db(),
    sql`select m.enabled, m.variables, m.delay_minutes, t.name, t.language, t.status, t.components
        from shopify_mappings m left join message_templates t on t.id = m.template_id and t.organization_id = m.organization_id
        where m.organization_id = ${organizationId} and m.event_type = ${eventType}`,
  );
  return row ?? null;
}

/**
 * The event's template to its customer, when the business mapped one and turned it on: the phone
 * from the payload (E.164), opt-outs respected, the variables filled from the payload, queued with
 * `queueMessage` (estimate, wallet, consent). The outcome is written in the message's own
 * transaction, only if the event has none yet: a retried job never queues twice.
 */
async function sendFor(row: EventRow, eventType: ShopifyEventType, payload: Json, from: ("received" | "waiting")[]) {
  const skip = async (reason: SkipReason, phone: string | null = null) => {
    await db().transaction(async (tx) => {
      const done = await queryRows<{ id: string }>(
        tx,
        sql`update shopify_events set status = 'skipped', reason = ${reason}, phone = ${phone}, processed_at = now()
            where id = ${row.id} and status = any(${sql.param(from)}::text[]) returning id`,
      );
      // Not mapped or turned off is the business's choice, shown on its page: the log keeps the ones to act on.
      if (done.length && reason !== "no_mapping" && reason !== "turned_off")
        await activity(
          tx,
          row.organization_id,
          "warning",
          words("shopify_activity_skipped", { reference: row.reference ?? row.topic, reason: words(reasonKey(reason)) }),
        );
    });
    return reason;
  };
  const mapping = await mappingOf(row.organization_id, eventType);
  if (!mapping) return skip("no_mapping");
  if (!mapping.enabled) return skip("turned_off");
  if (!mapping.name || mapping.status !== "approved") return skip("template_unavailable");
  const phone = customerPhoneOf(payload);
  if (!phone) return skip("no_phone");
  const [optedOut] = await queryRows<{ id: string }>(
    db(),
    sql`select id from contacts where organization_id = ${row.organization_id} and phone = ${phone} and opt_in = 'opted_out' limit 1`,
  );
  if (optedOut) return skip("opted_out", phone);
  const count = templateVariables(mapping.components).length;
  const parameters = Array.from({ length: count }, (_, i) => {
    const field = mapping.variables[i];
    return (isShopifyField(field) ? fieldValue(field, payload) : null) ?? "-";
  });
  try {
    await queueMessage(row.organization_id, {
      to: phone,
      content: { kind: "template", template: { name: mapping.name, language: mapping.language ?? undefined, parameters } },
      source: "automation",
      onQueued: async (tx, messageId) => {
        const done = await queryRows<{ id: string }>(
          tx,
          sql`update shopify_events set status = 'sent', reason = null, phone = ${phone}, message_id = ${messageId}, processed_at = now()
              where id = ${row.id} and status = any(${sql.param(from)}::text[]) returning id`,
        );
        if (!done.length) throw new AlreadyDone();
        await activity(
          tx,
          row.organization_id,
          "success",
          words("shopify_activity_sent", { reference: row.reference ?? row.topic, phone }),
        );
      },
    });
    return "sent";
  } catch (error) {
    if (error instanceof AlreadyDone) return "done";
    if (!isRefusal(error)) throw error;
    const reason: SkipReason =
      error.code === "insufficient_balance"
        ? "insufficient_balance"
        : error.code === "not_opted_in"
          ? "not_opted_in"
          : error.code === "template_not_found" || error.code === "template_not_approved"
            ? "template_unavailable"
            : "send_refused";
    return skip(reason, phone);
  }
}

/** A stored reason's message (an unknown one says the message was refused). */
export function reasonKey(reason: string | null): (typeof SHOPIFY_REASONS)[number] {
  const key = `shopify_reason_${reason}`;
  return (SHOPIFY_REASONS as readonly string[]).includes(key) ? (key as (typeof SHOPIFY_REASONS)[number]) : "shopify_reason_send_refused";
}

/** A reason in words, for the page, in the request's language. */
export function reasonWords(reason: string | null): string {
  return m[reasonKey(reason)]();
}

const tokenOf = (payload: Json) => (typeof payload.token === "string" && payload.token ? payload.token.slice(0, 200) : null);

/**
 * A checkout created or changed: while not completed it waits for the business's delay (a delayed job
 * at its time, once per checkout); completed, it is done and its waiting message cancelled.
 */
async function checkoutSeen(row: EventRow) {
  const token = tokenOf(row.payload);
  if (!token) return finish(db(), row.id, "ignored", "topic_not_used");
  const completed = typeof row.payload.completed_at === "string" && row.payload.completed_at !== "";
  const mapping = await mappingOf(row.organization_id, "checkout_abandoned");
  const delayMinutes = mapping?.delay_minutes ?? 60;
  const createdAt = Date.parse(String(row.payload.created_at ?? "")) || Date.now();
  const dueAt = new Date(createdAt + delayMinutes * 60_000);
  await db().transaction(async (tx) => {
    const [checkout] = await queryRows<{ id: string; event_row_id: string; state: string; inserted: boolean }>(
      tx,
      sql`
      insert into shopify_checkouts (organization_id, token, event_row_id, payload, phone, state, due_at)
      values (${row.organization_id}, ${token}, ${row.id}, ${JSON.stringify(row.payload)}::jsonb, ${customerPhoneOf(row.payload)},
              ${completed ? "done" : "waiting"}, ${dueAt.toISOString()}::timestamptz)
      on conflict (organization_id, token) do update set
        payload = case when shopify_checkouts.state = 'waiting' then excluded.payload else shopify_checkouts.payload end,
        phone = case when shopify_checkouts.state = 'waiting' then coalesce(excluded.phone, shopify_checkouts.phone) else shopify_checkouts.phone end,
        state = case when ${completed} then 'done' else shopify_checkouts.state end
      returning id, event_row_id, state, (xmax = 0) as inserted`,
    );
    if (!checkout) return;
    const own = checkout.event_row_id === row.id;
    if (completed) {
      // The checkout's first event says it was cancelled (unless it was already sent); this one is the completion.
      await finish(tx, checkout.event_row_id, "cancelled", "checkout_completed");
      if (!own) await finish(tx, row.id, "ignored", "checkout_completed");
      return;
    }
    if (!own) return finish(tx, row.id, "ignored", "checkout_updated");
    await finish(tx, row.id, "waiting", null, customerPhoneOf(row.payload));
    await enqueueJob(
      SHOPIFY_ABANDONED_QUEUE,
      { checkoutId: checkout.id },
      { executor: tx, runAt: dueAt, uniqueKey: `shopify-checkout:${checkout.id}` },
    );
  });
}

/** An order cancels its customer's waiting checkouts: the same checkout token, or the same phone. */
async function cancelCheckoutsOf(row: EventRow) {
  const token = typeof row.payload.checkout_token === "string" ? row.payload.checkout_token : null;
  const phone = customerPhoneOf(row.payload);
  if (!token && !phone) return;
  await db().transaction(async (tx) => {
    const cancelled = await queryRows<{ event_row_id: string }>(
      tx,
      sql`update shopify_checkouts set state = 'done'
          where organization_id = ${row.organization_id} and state = 'waiting' and (token = ${token} or phone = ${phone})
          returning event_row_id`,
    );
    for (const c of cancelled) await finish(tx, c.event_row_id, "cancelled", "order_placed");
  });
}

/** The delayed job: a checkout still waiting at its time is abandoned, and its template goes. */
export async function sendAbandonedCheckouts(jobs: Job<{ checkoutId: string }>[]) {
  for (const job of jobs) await sendAbandonedCheckout(job.payload.checkoutId);
}

async function sendAbandonedCheckout(checkoutId: string) {
  const [checkout] = await queryRows<{ payload: Json; event_row_id: string; organization_id: string; due: boolean }>(
    db(),
    sql`select payload, event_row_id, organization_id, due_at <= now() as due from shopify_checkouts where id = ${checkoutId} and state = 'waiting'`,
  );
  if (!checkout) return;
  if (!checkout.due) {
    // The delay was lengthened after it was scheduled: again at its time.
    throw new Error("not due yet");
  }
  const [event] = await queryRows<EventRow>(
    db(),
    sql`select id, organization_id, shop, topic, event_type, payload, reference from shopify_events where id = ${checkout.event_row_id}`,
  );
  if (event) await sendFor(event, "checkout_abandoned", checkout.payload, ["waiting"]);
  // After the outcome: a job that failed before it is run again and finds the checkout still waiting.
  await db().execute(sql`update shopify_checkouts set state = 'done' where id = ${checkoutId} and state = 'waiting'`);
}

/** The recurring sweep: due checkouts still waiting whose job is gone get one again. */
export async function sweepAbandonedCheckouts() {
  const due = await queryRows<{ id: string }>(
    db(),
    sql`select id from shopify_checkouts where state = 'waiting' and due_at <= now() order by due_at limit 200`,
  );
  for (const { id } of due) await enqueueJob(SHOPIFY_ABANDONED_QUEUE, { checkoutId: id }, { uniqueKey: `shopify-checkout:${id}` });
}

/** The merchant removed Jumbe from the shop: the connection is disconnected (its token no longer works). */
async function appUninstalled(row: EventRow) {
  await db().transaction(async (tx) => {
    const gone = await queryRows<{ id: string }>(
      tx,
      sql`update integration_connections set status = 'disconnected', access_token_sealed = null, refresh_token_sealed = null,
            disconnected_at = now(), updated_at = now()
          where organization_id = ${row.organization_id} and provider = 'shopify' and external_account_id = ${row.shop} and status = 'connected'
          returning id`,
    );
    await finish(tx, row.id, "ignored", "app_uninstalled");
    if (gone.length)
      await tx.insert(activityLogs).values({
        organizationId: row.organization_id,
        type: "settings",
        status: "warning",
        action: "Integration disconnected",
        details: `${NAME}: ${row.shop}`,
      });
  });
}
