import type { IncomingMessage, ServerResponse } from "node:http";
import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { noteDatabaseError, RETRY_AFTER_SECONDS } from "../../../infrastructure/db/availability";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { wakeWorkers } from "../../../infrastructure/jobs/worker";
import { log } from "../../../infrastructure/log";
import { isShopDomain, verifyWebhook } from "../../../infrastructure/clients/shopify";
import { eventTypeOf, referenceOf } from "./fields";

/** The job queue that processes a stored event. */
export const SHOPIFY_EVENT_QUEUE = "shopify.events";
/** Shopify's order payloads with many lines stay well under this; nginx lets 1 MB through. */
export const SHOPIFY_WEBHOOK_MAX_BYTES = 1024 * 1024;

export interface IncomingShopifyWebhook {
  rawBody: Buffer;
  hmac: string | undefined;
  shop: string | undefined;
  topic: string | undefined;
  eventId: string | undefined;
}

export type IntakeOutcome = { status: 200; stored: boolean } | { status: 400 | 401 | 503; message: string };

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const HEADER_VALUE = /^[\w./:-]{1,200}$/;

/**
 * One delivery: the signature over the raw bytes first (401), then the headers and the JSON (400),
 * then the shop's connection. A shop no organisation has connected is answered 200 like any other
 * (nothing stored, nothing said). The event and its job are written in one transaction; a repeat of
 * the same X-Shopify-Event-Id adds neither.
 */
export async function receiveShopifyWebhook(input: IncomingShopifyWebhook): Promise<IntakeOutcome> {
  if (!verifyWebhook(input.rawBody, input.hmac)) return { status: 401, message: "Invalid signature." };
  const { shop, topic, eventId } = input;
  if (!isShopDomain(shop) || !topic || !HEADER_VALUE.test(topic) || !eventId || !HEADER_VALUE.test(eventId))
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
  const stored = await db().transaction(async (tx) => {
    const [row] = await queryRows<{ id: string }>(
      tx,
      sql`
      insert into shopify_events (organization_id, shop, event_id, topic, event_type, payload, reference)
      select c.organization_id, ${shop}, ${eventId}, ${topic}, ${eventTypeOf(topic)}, ${JSON.stringify(payload)}::jsonb,
             ${referenceOf(topic, payload as Record<string, unknown>)}
      from integration_connections c
      where c.provider = 'shopify' and c.status = 'connected' and c.external_account_id = ${shop}
      order by c.connected_at desc limit 1
      on conflict (organization_id, event_id) do nothing
      returning id`,
    );
    if (!row) return false;
    await enqueueJob(SHOPIFY_EVENT_QUEUE, { id: row.id }, { executor: tx });
    return true;
  });
  if (stored) wakeWorkers();
  return { status: 200, stored };
}

/** POST /webhooks/shopify on Node's own server, ahead of Express (like /webhooks/whatsapp): bounded body, no cookies. */
export async function handleShopifyWebhook(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "POST") return reply(res, 405, "Method not allowed.", { Allow: "POST" });
  if (Number(req.headers["content-length"] ?? 0) > SHOPIFY_WEBHOOK_MAX_BYTES) return reply(res, 413, "Payload too large.");
  let rawBody: Buffer;
  try {
    rawBody = await readBody(req);
  } catch {
    return reply(res, 413, "Payload too large.");
  }
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  try {
    const outcome = await receiveShopifyWebhook({
      rawBody,
      hmac: header("x-shopify-hmac-sha256"),
      shop: header("x-shopify-shop-domain"),
      topic: header("x-shopify-topic"),
      eventId: header("x-shopify-event-id") ?? header("x-shopify-webhook-id"),
    });
    if (outcome.status === 401)
      log().warn({ path: "/webhooks/shopify", ip: req.socket.remoteAddress }, "shopify webhook refused: bad signature");
    if (outcome.status === 200) return reply(res, 200, "OK");
    return reply(res, outcome.status, outcome.message);
  } catch (error) {
    // Not stored: Shopify delivers it again on a non-2xx answer.
    if (noteDatabaseError(error))
      return reply(res, 503, "Service temporarily unavailable.", { "Retry-After": String(RETRY_AFTER_SECONDS) });
    log().error({ err: error }, "shopify webhook could not be stored");
    return reply(res, 500, "Could not store the event.");
  }
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ message });
  res
    .writeHead(status, {
      ...headers,
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
      Connection: status === 413 ? "close" : "keep-alive",
    })
    .end(body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > SHOPIFY_WEBHOOK_MAX_BYTES) {
        req.pause();
        reject(new Error("too large"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
