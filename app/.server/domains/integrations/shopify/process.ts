import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { activityLogs } from "../../../infrastructure/db/schema";
import { enqueueJob, type Job } from "../../../infrastructure/jobs/queue";
import { isRefusal } from "../../../infrastructure/refusal";
import { queueMessage } from "../../messaging";
import { customerPhoneOf, fieldValue, isShopifyField, type ShopifyEventType } from "./fields";
import { templateBlock, templateBody, templateVariables } from "./templates";
import { armAutomationFallback } from "../../sms";
import { fillPlaceholders } from "../../campaigns";
import { SHOPIFY_EVENT_QUEUE } from "./intake";
import { confirmAtShops, uninstallConfirmed } from "./confirm";
import { handlePrivacyEvent, isPrivacyTopic } from "./privacy";
import { askForOrderPayments, noteOrdersToAsk } from "./order-payments";
import { syncProductEvents } from "./products";
import { m } from "~/paraglide/messages";
import { SHOPIFY_REASONS } from "../../activity";
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
  | "send_refused"
  | "not_confirmed"
  | "template_needs_header"
  | "template_needs_link"
  | "template_mismatch"
  | "whatsapp_not_ready"
  | "organization_closing";

/** Thrown inside queueMessage's transaction when the event already has its outcome (a retry): nothing is queued. */
class AlreadyDone extends Error {}

/** How many stored events one pass reads and writes together. */
const EVENTS_PER_PASS = 500;

/**
 * The event jobs (decision 089): the claimed jobs' events in passes of up to EVENTS_PER_PASS, each
 * pass with its reads and outcome writes done together: one read of the events, of the mappings they
 * need and of the opted-out phones among them, one statement for the waiting checkouts their orders
 * cancel and one for the skipped ones' outcomes (and their activity). Each message still goes in its
 * own transaction with its event's outcome, only if the event has none yet: a retried job (or a
 * pass run again one job at a time after a failure) never sends twice, and an event already decided
 * is not read again (status 'received' only).
 */
export async function processShopifyEvents(jobs: Job<{ ids: string[] }>[]) {
  const ids = [...new Set(jobs.flatMap((job) => job.payload.ids ?? []))];
  for (let i = 0; i < ids.length; i += EVENTS_PER_PASS) await processPass(ids.slice(i, i + EVENTS_PER_PASS));
}

/** One event on its own (the tests' and an operator's way in): the same path as a pass of one. */
export async function processShopifyEvent(id: string) {
  await processPass([id]);
}

async function processPass(ids: string[]) {
  const read = await queryRows<EventRow>(
    db(),
    sql`select id, organization_id, shop, topic, event_type, payload, reference from shopify_events
        where id = any(${sql.param(ids)}::uuid[]) and status = 'received' order by created_at, id`,
  );
  // Orders and fulfilments act at once (a message, checkouts cancelled): first the shop each claims
  // confirms it is its own (confirm.ts); checkouts are confirmed when their message is due.
  const acting = read.filter((row) => row.event_type === "order_created" || row.event_type === "order_fulfilled");
  const confirmation = await confirmAtShops(acting);
  const unknown = acting.filter((row) => confirmation.get(row.id) === "unknown");
  const unconfirmed = acting.filter((row) => confirmation.get(row.id) === "unconfirmed");
  await notTheShops(unknown.map((row) => row.id));
  await writeSkips(
    unconfirmed.map((row) => ({ row, reason: "not_confirmed" as const, phone: null })),
    ["received"],
  );
  const rows = read.filter((row) => !confirmation.has(row.id) || confirmation.get(row.id) === "confirmed");
  // In arrival order, as one at a time would: a run of orders and fulfilments goes together; a
  // checkout or an uninstall between them is handled on its own at its place (the orders before it
  // have cancelled what they cancel; the ones after it may cancel it).
  const run: EventRow[] = [];
  const ignored: string[] = [];
  // products/*: read again from the shop and saved together after the rest (products.ts).
  const productEvents: EventRow[] = [];
  const flush = async () => {
    if (ignored.length) await finishAll(ignored.splice(0), "ignored", "topic_not_used");
    if (run.length) await ordersAndFulfilments(run.splice(0));
  };
  for (const row of rows) {
    if (row.topic === "app/uninstalled") {
      await flush();
      await appUninstalled(row);
    } else if (isPrivacyTopic(row.topic)) {
      // Bound by its signed body's shop_domain (checked at intake), so no Admin API question: the shop may be gone.
      await flush();
      await handlePrivacyEvent(row);
    } else if (row.event_type === "checkout_abandoned") {
      await flush();
      await checkoutSeen(row);
    } else if (row.event_type === "order_created" || row.event_type === "order_fulfilled") run.push(row);
    else if (row.topic.startsWith("products/")) productEvents.push(row);
    else ignored.push(row.id);
  }
  await flush();
  await syncProductEvents(productEvents);
  // After the order's template (its conversation may be new); a retried job finds the orders it noted still asking.
  await askForOrderPayments(ids);
}

/**
 * Events the shop they name does not know (another shop's body under this shop's name): ignored, and
 * nothing of the other shop's body is kept for this organisation (its order, its customer).
 */
async function notTheShops(ids: string[], executor: Executor = db()) {
  if (!ids.length) return;
  await executor.execute(sql`
    update shopify_events set status = 'ignored', reason = 'not_confirmed', payload = '{}'::jsonb, reference = null, phone = null,
      processed_at = now()
    where id = any(${sql.param(ids)}::uuid[]) and status in ('received', 'waiting')`);
}

/** Events given the same outcome in one statement (those that have none yet). */
async function finishAll(ids: string[], status: "ignored" | "cancelled", reason: string, executor: Executor = db()) {
  await executor.execute(sql`
    update shopify_events set status = ${status}, reason = ${reason}, processed_at = now()
    where id = any(${sql.param(ids)}::uuid[]) and status in ('received', 'waiting')`);
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

/** What a send's refusal means for its event. */
function refusalReason(code: string): SkipReason {
  if (code === "insufficient_balance") return "insufficient_balance";
  if (code === "not_opted_in") return "not_opted_in";
  if (code === "template_not_found" || code === "template_not_approved") return "template_unavailable";
  if (code === "parameter_mismatch") return "template_mismatch";
  if (code === "invalid_phone_number") return "no_phone";
  if (code === "no_whatsapp_number" || code === "whatsapp_reconnect_needed" || code === "number_not_registered")
    return "whatsapp_not_ready";
  if (code === "organization_closing") return "organization_closing";
  return "send_refused";
}

/** A template whose header or link button an event cannot fill: skipped before anything is queued, saying which. */
function blockReason(components: unknown): SkipReason | null {
  const block = templateBlock(components);
  if (block === "button_link") return "template_needs_link";
  return block ? "template_needs_header" : null;
}

interface Skip {
  row: EventRow;
  reason: SkipReason;
  phone: string | null;
}

/**
 * Skipped events' outcomes in one transaction: one update for all (those still in a state of
 * `from`), and one activity insert for those the business should act on (not mapped or turned off is
 * its own choice, shown on its page).
 */
async function writeSkips(skips: Skip[], from: ("received" | "waiting")[]) {
  if (!skips.length) return;
  await db().transaction(async (tx) => {
    const done = await queryRows<{ id: string }>(
      tx,
      sql`update shopify_events e set status = 'skipped', reason = s.reason, phone = s.phone, processed_at = now()
          from unnest(${sql.param(skips.map((s) => s.row.id))}::uuid[], ${sql.param(skips.map((s) => s.reason))}::text[],
                      ${sql.param(skips.map((s) => s.phone))}::text[]) as s(id, reason, phone)
          where e.id = s.id and e.status = any(${sql.param(from)}::text[])
          returning e.id`,
    );
    const written = new Set(done.map((d) => d.id));
    const logged = skips.filter((s) => written.has(s.row.id) && s.reason !== "no_mapping" && s.reason !== "turned_off");
    if (logged.length)
      await tx.insert(activityLogs).values(
        logged.map((s) => ({
          organizationId: s.row.organization_id,
          type: "settings" as const,
          status: "warning" as const,
          action: "Integration synced",
          details: englishOf(
            words("shopify_activity_skipped", { reference: s.row.reference ?? s.row.topic, reason: words(reasonKey(s.reason)) }),
          ),
        })),
      );
  });
}

/** A run of orders and fulfilments: the checkouts its orders cancel, then their templates (or why none went). */
async function ordersAndFulfilments(rows: EventRow[]) {
  const orders = rows.filter((row) => row.event_type === "order_created");
  // Pending orders of businesses that ask for payment by M-Pesa: noted first, asked after the templates (order-payments.ts).
  await noteOrdersToAsk(orders);
  await cancelCheckoutsOf(orders);
  await sendForAll(
    rows.map((row) => ({ row, eventType: row.event_type!, payload: row.payload })),
    ["received"],
  );
}

interface Candidate {
  row: EventRow;
  eventType: ShopifyEventType;
  payload: Json;
}

/**
 * Each event's template to its customer, when the business mapped one and turned it on: the phone
 * from the payload (E.164), opt-outs respected, the variables filled from the payload, queued with
 * `queueMessage` (estimate, wallet, consent). The mappings and the opted-out phones are read once for
 * all; each message's event outcome is written in the message's own transaction, only if the event
 * has none yet (a retried job never queues twice); the skipped ones' outcomes together at the end.
 */
async function sendForAll(candidates: Candidate[], from: ("received" | "waiting")[]) {
  if (!candidates.length) return;
  const pairs = [...new Map(candidates.map((c) => [`${c.row.organization_id} ${c.eventType}`, c])).values()];
  const mappingRows = await queryRows<MappingRow & { organization_id: string; event_type: string }>(
    db(),
    sql`select m.organization_id, m.event_type, m.enabled, m.variables, m.delay_minutes, t.name, t.language, t.status, t.components
        from shopify_mappings m left join message_templates t on t.id = m.template_id and t.organization_id = m.organization_id
        where (m.organization_id, m.event_type) in (
          select * from unnest(${sql.param(pairs.map((p) => p.row.organization_id))}::uuid[], ${sql.param(pairs.map((p) => p.eventType))}::text[]))`,
  );
  const mappings = new Map(mappingRows.map((r) => [`${r.organization_id} ${r.event_type}`, r]));
  const skips: Skip[] = [];
  const toSend: (Candidate & { mapping: MappingRow; phone: string })[] = [];
  for (const c of candidates) {
    const mapping = mappings.get(`${c.row.organization_id} ${c.eventType}`);
    if (!mapping) skips.push({ row: c.row, reason: "no_mapping", phone: null });
    else if (!mapping.enabled) skips.push({ row: c.row, reason: "turned_off", phone: null });
    else if (!mapping.name || mapping.status !== "approved") skips.push({ row: c.row, reason: "template_unavailable", phone: null });
    else if (blockReason(mapping.components)) skips.push({ row: c.row, reason: blockReason(mapping.components)!, phone: null });
    else {
      const phone = customerPhoneOf(c.payload);
      if (!phone) skips.push({ row: c.row, reason: "no_phone", phone: null });
      else toSend.push({ ...c, mapping, phone });
    }
  }
  const optedOut = new Set<string>();
  if (toSend.length) {
    const rows = await queryRows<{ organization_id: string; phone: string }>(
      db(),
      sql`select distinct organization_id, phone from contacts
          where opt_in = 'opted_out' and (organization_id, phone) in (
            select * from unnest(${sql.param(toSend.map((c) => c.row.organization_id))}::uuid[], ${sql.param(toSend.map((c) => c.phone))}::text[]))`,
    );
    for (const r of rows) optedOut.add(`${r.organization_id} ${r.phone}`);
  }
  for (const c of toSend) {
    if (optedOut.has(`${c.row.organization_id} ${c.phone}`)) {
      skips.push({ row: c.row, reason: "opted_out", phone: c.phone });
      continue;
    }
    const refused = await sendOne(c.row, c.mapping, c.payload, c.phone, from);
    if (refused) skips.push({ row: c.row, reason: refused, phone: c.phone });
  }
  // In arrival order (the activity log lists them so).
  const place = new Map(candidates.map((c, i) => [c.row.id, i]));
  await writeSkips(
    skips.sort((a, b) => place.get(a.row.id)! - place.get(b.row.id)!),
    from,
  );
}

/** One message and its event's outcome in one transaction; answers why none went when it was refused. */
async function sendOne(row: EventRow, mapping: MappingRow, payload: Json, phone: string, from: ("received" | "waiting")[]) {
  const count = templateVariables(mapping.components).length;
  const parameters = Array.from({ length: count }, (_, i) => {
    const field = mapping.variables[i];
    return (isShopifyField(field) ? fieldValue(field, payload) : null) ?? "-";
  });
  try {
    await queueMessage(row.organization_id, {
      to: phone,
      content: { kind: "template", template: { name: mapping.name!, language: mapping.language ?? undefined, parameters } },
      source: "automation",
      onQueued: async (tx, { id: messageId }) => {
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
        await armShopifyFallback(tx, { row, mapping, parameters, messageId });
      },
    });
    return null;
  } catch (error) {
    if (error instanceof AlreadyDone) return null;
    if (!isRefusal(error)) throw error;
    return refusalReason(error.code);
  }
}

/** The event's SMS fallback, when the business set one for its kind (decision 159): the template's values in its text. */
async function armShopifyFallback(tx: Executor, input: { row: EventRow; mapping: MappingRow; parameters: string[]; messageId: string }) {
  const { row, mapping, parameters, messageId } = input;
  if (!row.event_type) return;
  const variables = templateVariables(mapping.components);
  const named = variables.every((v) => /^\d+$/.test(v)) ? [] : variables;
  await armAutomationFallback(tx, {
    organizationId: row.organization_id,
    messageId,
    automation: `shopify_${row.event_type}`,
    values: parameters,
    messageText: fillPlaceholders(templateBody(mapping.components), parameters, named),
  });
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

/** Orders cancel their customers' waiting checkouts (the same checkout token, or the same phone): one statement for all. */
async function cancelCheckoutsOf(orders: EventRow[]) {
  const keys = orders
    .map((row) => ({
      organizationId: row.organization_id,
      token: typeof row.payload.checkout_token === "string" ? row.payload.checkout_token : null,
      phone: customerPhoneOf(row.payload),
    }))
    .filter((k) => k.token || k.phone);
  if (!keys.length) return;
  await db().transaction(async (tx) => {
    const cancelled = await queryRows<{ event_row_id: string }>(
      tx,
      sql`update shopify_checkouts c set state = 'done'
          from unnest(${sql.param(keys.map((k) => k.organizationId))}::uuid[], ${sql.param(keys.map((k) => k.token))}::text[],
                      ${sql.param(keys.map((k) => k.phone))}::text[]) as o(organization_id, token, phone)
          where c.organization_id = o.organization_id and c.state = 'waiting' and (c.token = o.token or c.phone = o.phone)
          returning c.event_row_id`,
    );
    if (cancelled.length) await finishAll([...new Set(cancelled.map((c) => c.event_row_id))], "cancelled", "order_placed", tx);
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
  if (event) {
    // The checkout as its shop knows it (confirm.ts): another shop's checkout is not this business's to answer.
    const confirmation = (await confirmAtShops([{ ...event, payload: checkout.payload }])).get(event.id);
    if (confirmation === "unknown") await notTheShops([event.id]);
    else if (confirmation === "unconfirmed") await writeSkips([{ row: event, reason: "not_confirmed", phone: null }], ["waiting"]);
    else await sendForAll([{ row: event, eventType: "checkout_abandoned", payload: checkout.payload }], ["waiting"]);
  }
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

/**
 * The merchant removed Jumbe from the shop: the connection is disconnected (its token no longer works).
 * Only when the body is that shop's and the shop no longer takes the token (confirm.ts): a removal
 * replayed, or another shop's, changes nothing.
 */
async function appUninstalled(row: EventRow) {
  if (!(await uninstallConfirmed(row))) return notTheShops([row.id]);
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
