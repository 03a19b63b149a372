import { rawQuery } from "../../../infrastructure/db/client";
import { env } from "../../../infrastructure/config/env";
import { createGroupCommit } from "../../../infrastructure/db/group-commit";
import { wakeWorkers } from "../../../infrastructure/jobs/worker";
import { isShopDomain, verifyWebhook } from "../../../infrastructure/clients/shopify";
import { createHash } from "node:crypto";
import { bodyShopOf, deliveryKeyOf, eventTypeOf, referenceOf } from "./fields";
import { PRIVACY_TOPICS, isPrivacyTopic } from "./privacy";

/** The job queue that processes a stored event. */
export const SHOPIFY_EVENT_QUEUE = "shopify.events";

export interface IncomingShopifyWebhook {
  rawBody: Buffer;
  hmac: string | undefined;
  shop: string | undefined;
  topic: string | undefined;
}

export type IntakeOutcome = { status: 200 } | { status: 400 | 401 | 503; message: string };

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const HEADER_VALUE = /^[\w./:-]{1,200}$/;

/**
 * One delivery: the signature over the raw bytes first (401), then the headers and the JSON (400),
 * then the shop's connection. A shop no organisation has connected is answered 200 like any other
 * (nothing stored, nothing said). The event and its job are written in one statement (group commit
 * with the deliveries arriving meanwhile).
 *
 * Shopify signs the body only, with the one app secret for every shop (decision 098): the headers
 * naming the shop and the event are not signed. So a delivery is keyed by what its body says (shop,
 * topic, resource id, updated_at), never by X-Shopify-Event-Id, and a repeat of the same body adds
 * nothing; a body that names another shop than the header (app/uninstalled's shop object) is refused;
 * and the job confirms the resource with the claimed shop's Admin API before acting on it (process.ts).
 */
export async function receiveShopifyWebhook(input: IncomingShopifyWebhook): Promise<IntakeOutcome> {
  if (!verifyWebhook(input.rawBody, input.hmac)) return { status: 401, message: "Invalid signature." };
  const { shop, topic } = input;
  if (!isShopDomain(shop) || !topic || !HEADER_VALUE.test(topic))
    return { status: 400, message: "The Shopify headers are missing or malformed." };
  let payload: unknown;
  try {
    const text = UTF8.decode(input.rawBody);
    if (text.includes("\\u0000") || text.includes("\u0000")) throw new Error("NUL");
    payload = JSON.parse(text);
  } catch {
    return { status: 400, message: "The body is not JSON." };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    return { status: 400, message: "The body is not a JSON object." };
  const body = payload as Record<string, unknown>;
  const named = bodyShopOf(body);
  if (named !== null && named !== shop) return { status: 400, message: "The body is another shop's than X-Shopify-Shop-Domain." };
  // Shopify's privacy bodies always name their shop (signed): one that does not is not Shopify's.
  if (isPrivacyTopic(topic) && named === null) return { status: 400, message: "A privacy webhook's body names no shop_domain." };
  await intake().store({
    shop,
    eventId: deliveryKeyOf(shop, topic, body, createHash("sha256").update(input.rawBody).digest("hex")),
    topic,
    eventType: eventTypeOf(topic),
    payload: JSON.stringify(payload),
    reference: referenceOf(topic, body),
  });
  return { status: 200 };
}

interface Delivery {
  shop: string;
  /** The delivery's key from its signed body (deliveryKeyOf), stored in `event_id`. */
  eventId: string;
  topic: string;
  eventType: string | null;
  payload: string;
  reference: string | null;
}

let ingest: ReturnType<typeof createShopifyIngest> | null = null;
const intake = () => (ingest ??= createShopifyIngest({ maxInFlight: env().DATABASE_URL ? 4 : 1 }));

/**
 * Group commit, as WhatsApp's intake does (infrastructure/db/group-commit.ts): deliveries that arrive
 * while a write is in flight go together in the next one, so one statement (one fsync) stores many
 * under load and a lone delivery is written at once. Each is answered only after its commit.
 */
export function createShopifyIngest(options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const commits = createGroupCommit<Delivery>(
    async (deliveries) => {
      if (await storeShopifyEvents(deliveries)) wakeWorkers();
    },
    { maxBatch: options.maxBatch ?? 500, maxInFlight: options.maxInFlight ?? 1 },
  );
  return { store: (delivery: Delivery) => commits.add(delivery) };
}

/**
 * One statement: each delivery for a connected shop stored for that shop's organisation (the latest
 * connection of the shop), a repeated delivery key adding nothing, and one job for the rows stored.
 * The privacy topics are stored for a shop removed too (its latest connection, connected or not):
 * shop/redact comes 48 hours after the removal, and a customer's erasure may too (decision 108).
 * Answers how many were new.
 */
export async function storeShopifyEvents(deliveries: Delivery[]): Promise<number> {
  const column = <K extends keyof Delivery>(key: K) => deliveries.map((d) => d[key]);
  const [row] = await rawQuery<{ n: number }>(
    `with input as (
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
         with ordinality as t(shop, event_id, topic, event_type, payload, reference, n)
     ),
     shops as (
       select distinct on (external_account_id) external_account_id as shop, organization_id, status
       from integration_connections
       where provider = 'shopify' and external_account_id in (select shop from input)
       order by external_account_id, status = 'connected' desc, connected_at desc
     ),
     stored as (
       insert into shopify_events (organization_id, shop, event_id, topic, event_type, payload, reference)
       select distinct on (s.organization_id, i.event_id)
              s.organization_id, i.shop, i.event_id, i.topic, i.event_type, i.payload::jsonb, i.reference
       from input i join shops s on s.shop = i.shop and (s.status = 'connected' or i.topic = any($8::text[]))
       order by s.organization_id, i.event_id, i.n
       on conflict (organization_id, event_id) do nothing
       returning id
     ),
     job as (
       insert into jobs (queue, payload)
       select $7, jsonb_build_object('ids', jsonb_agg(id)) from stored having count(*) > 0
     )
     select count(*)::int as n from stored`,
    [
      column("shop"),
      column("eventId"),
      column("topic"),
      column("eventType"),
      column("payload"),
      column("reference"),
      SHOPIFY_EVENT_QUEUE,
      [...PRIVACY_TOPICS],
    ],
  );
  return row?.n ?? 0;
}
