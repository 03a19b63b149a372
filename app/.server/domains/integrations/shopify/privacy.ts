import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { activityLogs } from "../../../infrastructure/db/schema";
import { kenyanPhone } from "../../../infrastructure/clients/shopify";
import { englishOf, words } from "../../../infrastructure/words/said";
import { Refusal } from "../../../infrastructure/refusal";
import { contactDataExport, eraseContact } from "../../contacts";
import { notify } from "../../notifications";
import { m } from "~/paraglide/messages";

/**
 * Shopify's mandatory privacy webhooks (issue 73, decision 108), answered with the Data Protection
 * Act tools Jumbe already has: a customer's data request is the contacts' right-of-access export
 * (contacts/rights.ts) with the shop's events about them, downloaded by the organisation's owner
 * and sent on to the shop; a customer's redaction is the contacts' erasure with their Shopify events
 * blanked; a shop's redaction removes what Jumbe keeps for that shop. Each runs in the event job (the
 * webhook is answered at once), once per stored event (a Shopify retry of the same body is the same
 * event, decision 098), bound to the shop the signed body names.
 */

export const PRIVACY_TOPICS = ["customers/data_request", "customers/redact", "shop/redact"] as const;
export type PrivacyTopic = (typeof PRIVACY_TOPICS)[number];
export const isPrivacyTopic = (topic: string): topic is PrivacyTopic => (PRIVACY_TOPICS as readonly string[]).includes(topic);

type Json = Record<string, unknown>;

interface PrivacyRow {
  id: string;
  organization_id: string;
  shop: string;
  topic: string;
  payload: Json;
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const idOf = (value: unknown) =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0
    ? String(value)
    : typeof value === "string" && /^[1-9]\d{0,19}$/.test(value)
      ? value
      : null;

/** Who a customer request is about, as its signed body says: Shopify's customer id, phone, e-mail, and the orders named. */
export function customerOfRequest(payload: Json) {
  const customer = isObject(payload.customer) ? payload.customer : {};
  const email =
    typeof customer.email === "string" && customer.email.includes("@") ? customer.email.trim().toLowerCase().slice(0, 320) : null;
  const orders = [payload.orders_requested, payload.orders_to_redact].flatMap((list) => (Array.isArray(list) ? list : []));
  return {
    customerId: idOf(customer.id),
    phone: kenyanPhone(customer.phone),
    email,
    orderIds: [...new Set(orders.map(idOf).filter((id): id is string => id !== null))].slice(0, 1000),
  };
}

type Customer = ReturnType<typeof customerOfRequest>;

/** The shop's events (not the privacy ones) about this customer: by customer id, order id, phone or e-mail. */
const aboutCustomer = (organizationId: string, shop: string, c: Customer) => sql`
  e.organization_id = ${organizationId} and e.shop = ${shop}
  and e.topic <> all(${sql.param([...PRIVACY_TOPICS])}::text[])
  and (
    (${c.customerId}::text is not null and e.payload->'customer'->>'id' = ${c.customerId}::text)
    or (e.topic like 'orders/%' and e.payload->>'id' = any(${sql.param(c.orderIds)}::text[]))
    or (e.topic like 'fulfillments/%' and e.payload->>'order_id' = any(${sql.param(c.orderIds)}::text[]))
    or (${c.phone}::text is not null and e.phone = ${c.phone}::text)
    or (${c.email}::text is not null and (lower(e.payload->>'email') = ${c.email}::text or lower(e.payload->'customer'->>'email') = ${c.email}::text))
  )`;

/** The customer's numbers: the request's own and those their events were sent to; and the organisation's contacts with them. */
async function customerHoldings(executor: Executor, organizationId: string, shop: string, c: Customer) {
  const events = await queryRows<{ id: string; phone: string | null }>(
    executor,
    sql`select e.id, e.phone from shopify_events e where ${aboutCustomer(organizationId, shop, c)}`,
  );
  const phones = [...new Set([c.phone, ...events.map((e) => e.phone)].filter((p): p is string => !!p))];
  const contacts = await queryRows<{ id: string; phone: string }>(
    executor,
    sql`select id, phone from contacts where organization_id = ${organizationId} and phone = any(${sql.param(phones)}::text[]) order by created_at, id`,
  );
  return { events, phones, contacts };
}

async function logged(executor: Executor, organizationId: string, key: Parameters<typeof words>[0], inputs: Parameters<typeof words>[1]) {
  await executor.insert(activityLogs).values({
    organizationId,
    type: "security",
    status: "success",
    action: "Shopify privacy request",
    details: englishOf(words(key, inputs)),
  });
}

/**
 * Marks the privacy event done (only from received: a retried job does nothing twice). Answers
 * whether it was this call's. `rekey` frees the delivery key of a shop/redact once done: its body
 * (the shop's id and domain) is the same every time, so a later removal of the shop, installed
 * again, must not be taken for a repeat; a retry of this one finds no connection and is not stored.
 */
async function done(executor: Executor, row: PrivacyRow, reason: string, reference: string, payload: Json, rekey: boolean) {
  const rows = await queryRows<{ id: string }>(
    executor,
    sql`update shopify_events set status = 'done', reason = ${reason}, reference = ${reference}, phone = null,
          payload = ${JSON.stringify(payload)}::jsonb, processed_at = now(),
          event_id = case when ${rekey} then event_id || ' done ' || id::text else event_id end
        where id = ${row.id} and status = 'received' returning id`,
  );
  return rows.length > 0;
}

const referenceOf = (c: Customer) => (c.customerId ? `customer ${c.customerId}` : "customer");

/**
 * customers/data_request: what Jumbe holds about the customer is counted now and assembled when the
 * owner downloads it (privacyExport below), so no second copy of it is kept; the owners are told in
 * the bell (and e-mail, by the organisation's rule) and the activity log says so. Shopify expects the
 * merchant to answer the customer within 30 days.
 */
async function dataRequest(row: PrivacyRow) {
  const c = customerOfRequest(row.payload);
  await db().transaction(async (tx) => {
    const held = await customerHoldings(tx, row.organization_id, row.shop, c);
    const nothing = !held.contacts.length && !held.events.length;
    // The request's own body keeps who it is about (the export finds them again by it).
    if (!(await done(tx, row, nothing ? "privacy_nothing_held" : "privacy_export_ready", referenceOf(c), row.payload, false))) return;
    await logged(tx, row.organization_id, "shopify_privacy_activity_data_request", {
      shop: row.shop,
      reference: referenceOf(c),
      contacts: held.contacts.length,
      events: held.events.length,
    });
    await notify(
      {
        organizationId: row.organization_id,
        event: "privacy_request",
        words: {
          title: words("shopify_privacy_notice_title", { shop: row.shop }),
          body: words(nothing ? "shopify_privacy_notice_body_nothing" : "shopify_privacy_notice_body", {
            reference: referenceOf(c),
          }),
        },
        link: "/integrations/shopify",
        dedupeKey: `shopify-data-request:${row.id}`,
        roles: ["owner"],
      },
      tx,
    );
  });
}

/**
 * customers/redact: each of the organisation's contacts with the customer's number erased by the
 * contacts' own erasure (messages blanked, a tombstone kept), the shop's events about them blanked
 * and their waiting checkouts removed; logged. Shopify sends it when the customer's erasure is due
 * (10 days after their request, or 6 months after their last order), so it is done at once.
 */
async function customerRedact(row: PrivacyRow) {
  const c = customerOfRequest(row.payload);
  const held = await customerHoldings(db(), row.organization_id, row.shop, c);
  // Each erasure is its own transaction (as a member's is); one already done finds no contact.
  for (const contact of held.contacts)
    await eraseContact({ organizationId: row.organization_id, userId: null }, contact.id).catch((error: unknown) => {
      if (!(error instanceof Refusal && error.status === 404)) throw error;
    });
  await db().transaction(async (tx) => {
    await tx.execute(sql`
      delete from shopify_checkouts k using shopify_events e
      where k.event_row_id = e.id and k.organization_id = ${row.organization_id} and e.organization_id = ${row.organization_id} and e.shop = ${row.shop}
        and ((${aboutCustomer(row.organization_id, row.shop, c)}) or k.phone = any(${sql.param(held.phones)}::text[])
             or (${c.customerId}::text is not null and k.payload->'customer'->>'id' = ${c.customerId}::text))`);
    const blanked = await queryRows<{ id: string }>(
      tx,
      sql`update shopify_events e set payload = '{}'::jsonb, phone = null
          where ${aboutCustomer(row.organization_id, row.shop, c)} returning e.id`,
    );
    // The request keeps the customer's id and the orders, never their number or address.
    const kept = { customer: { id: c.customerId }, orders_to_redact: c.orderIds };
    if (!(await done(tx, row, "privacy_customer_erased", referenceOf(c), kept, false))) return;
    await logged(tx, row.organization_id, "shopify_privacy_activity_customer_redact", {
      shop: row.shop,
      reference: referenceOf(c),
      contacts: held.contacts.length,
      events: blanked.length,
    });
  });
}

/**
 * shop/redact (48 hours after the app was removed): the shop's data goes: its connection (with the
 * tokens), its events and checkouts, and the event mappings when the organisation has no other shop.
 * The organisation's contacts and messages stay (they are its own; a customer's erasure is
 * customers/redact). A shop connected again meanwhile keeps everything.
 */
async function shopRedact(row: PrivacyRow) {
  await db().transaction(async (tx) => {
    const live = await queryRows<{ id: string }>(
      tx,
      sql`select id from integration_connections
          where organization_id = ${row.organization_id} and provider = 'shopify' and external_account_id = ${row.shop} and status = 'connected'
          for update`,
    );
    if (live.length) {
      if (await done(tx, row, "privacy_shop_connected_again", row.shop, { shop_domain: row.shop }, true))
        await logged(tx, row.organization_id, "shopify_privacy_activity_shop_kept", { shop: row.shop });
      return;
    }
    const events = await queryRows<{ id: string }>(
      tx,
      sql`delete from shopify_events where organization_id = ${row.organization_id} and shop = ${row.shop} and id <> ${row.id} returning id`,
    );
    await tx.execute(sql`delete from integration_connections
      where organization_id = ${row.organization_id} and provider = 'shopify' and external_account_id = ${row.shop} and status <> 'connected'`);
    await tx.execute(sql`delete from shopify_mappings where organization_id = ${row.organization_id}
      and not exists (select 1 from integration_connections where organization_id = ${row.organization_id} and provider = 'shopify')`);
    if (!(await done(tx, row, "privacy_shop_erased", row.shop, { shop_domain: row.shop }, true))) return;
    await logged(tx, row.organization_id, "shopify_privacy_activity_shop_redact", { shop: row.shop, events: events.length });
  });
}

/** A stored privacy event, in the event job. */
export async function handlePrivacyEvent(row: PrivacyRow) {
  if (row.topic === "customers/data_request") return dataRequest(row);
  if (row.topic === "customers/redact") return customerRedact(row);
  return shopRedact(row);
}

const notFound = () => new Refusal({ domain: "integration", status: 404, message: m.shopify_privacy_request_not_found() });

/**
 * The data request's export, for the owner to send on to the shop: the right-of-access export of each
 * of the organisation's contacts with the customer's number (profile, consent, messages: every order
 * notice sent), and the shop's events about the customer as Jumbe keeps them. Assembled when asked,
 * from what is held then (a redaction since leaves nothing). Another organisation's request is not found.
 */
export async function privacyExport(actor: { organizationId: string; userId: string }, eventId: string) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(eventId)) throw notFound();
  const [request] = await queryRows<PrivacyRow & { received_at: Date | string }>(
    db(),
    sql`select id, organization_id, shop, topic, payload, created_at as received_at from shopify_events
        where organization_id = ${actor.organizationId} and id = ${eventId} and topic = 'customers/data_request' and status = 'done'`,
  );
  if (!request) throw notFound();
  const c = customerOfRequest(request.payload);
  const held = await customerHoldings(db(), actor.organizationId, request.shop, c);
  const events = await queryRows<unknown>(
    db(),
    sql`select e.topic, e.reference, e.status, e.reason, e.phone, e.created_at as "receivedAt", e.payload
        from shopify_events e where ${aboutCustomer(actor.organizationId, request.shop, c)} order by e.created_at, e.id`,
  );
  const contacts = [];
  for (const contact of held.contacts) contacts.push(await contactDataExport(actor, contact.id));
  return {
    fileName: `shopify-data-request-${request.id}.json`,
    body: JSON.stringify(
      {
        exportedAt: new Date().toISOString(),
        law: "Kenya Data Protection Act 2019, section 26: the right of access",
        shop: request.shop,
        request: {
          receivedAt: new Date(request.received_at).toISOString(),
          customer: request.payload.customer ?? null,
          orders: c.orderIds,
        },
        contacts,
        shopifyEvents: events,
      },
      null,
      2,
    ),
  };
}
