import { createHmac, randomUUID } from "node:crypto";

export type Delivery = "normal" | "duplicate" | "bad_signature";
export const DELIVERIES: readonly Delivery[] = ["normal", "duplicate", "bad_signature"];

export interface WebhookAttempt {
  at: string;
  status?: number;
  error?: string;
}

export interface WebhookRecord {
  index: number;
  topic: string;
  shop: string;
  subscriptionId: number;
  url: string;
  /** The exact bytes sent (and signed). */
  body: string;
  hmac: string;
  eventId: string;
  webhookId: string;
  triggeredAt: string;
  apiVersion: string;
  delivery: Delivery;
  /** A second delivery of the same event (the same X-Shopify-Event-Id), or a resend. */
  duplicateOf?: number;
  state: "pending" | "delivered" | "failed";
  attempts: WebhookAttempt[];
}

export interface WebhookSenderOptions {
  secret: string;
  /** Before the first attempt, and the base of the backoff between attempts (doubling). */
  delayMs: number;
  attempts: number;
  now: () => number;
}

/** Shopify's `X-Shopify-Hmac-Sha256`: base64 of the HMAC-SHA256 of the raw body with the app's secret. */
export function shopifyWebhookHmac(body: string | Buffer, secret: string) {
  return createHmac("sha256", secret).update(body).digest("base64");
}

/** What a bad-signature delivery is signed with instead of the app's secret. */
const WRONG_SECRET = "not-the-app-secret";
const REQUEST_TIMEOUT_MS = 5_000;
const KEEP_RECORDS = 1000;

/**
 * Shopify's webhook delivery: a signed JSON POST with Shopify's headers, retried with backoff
 * until the receiver answers 2xx, at most `attempts` times. A delivery can be made twice (at least
 * once: the same event id) or signed with the wrong key. Records are kept for the console and tests.
 */
export class WebhookSender {
  private records: { record: WebhookRecord; settled: Promise<void> }[] = [];
  private nextIndex = 0;
  private abort = new AbortController();
  private closed = false;

  constructor(private readonly options: WebhookSenderOptions) {}

  send(input: {
    topic: string;
    shop: string;
    subscriptionId: number;
    url: string;
    apiVersion: string;
    payload: unknown;
    delivery?: Delivery;
  }): WebhookRecord[] {
    const delivery = input.delivery ?? "normal";
    const body = JSON.stringify(input.payload);
    const eventId = randomUUID();
    const triggeredAt = new Date(this.options.now()).toISOString();
    const first = this.start({ ...input, body, eventId, triggeredAt, delivery });
    if (delivery !== "duplicate") return [first];
    return [first, this.start({ ...input, body, eventId, triggeredAt, delivery, duplicateOf: first.index })];
  }

  /** The same bytes and event id again, as a new delivery. */
  resend(index: number): WebhookRecord | undefined {
    const original = this.records.find((r) => r.record.index === index)?.record;
    if (!original) return undefined;
    return this.start({ ...original, duplicateOf: original.index });
  }

  list(): WebhookRecord[] {
    return this.records.map((r) => structuredClone(r.record));
  }

  async flush() {
    for (;;) {
      const pending = this.records.filter((r) => r.record.state === "pending");
      if (!pending.length) return;
      await Promise.all(pending.map((r) => r.settled));
    }
  }

  reset() {
    this.abort.abort();
    this.abort = new AbortController();
    this.records = [];
  }

  close() {
    this.closed = true;
    this.abort.abort();
  }

  private start(input: {
    topic: string;
    shop: string;
    subscriptionId: number;
    url: string;
    apiVersion: string;
    body: string;
    eventId: string;
    triggeredAt: string;
    delivery: Delivery;
    duplicateOf?: number;
  }): WebhookRecord {
    if (this.closed) throw new Error("The Shopify sandbox is closed.");
    const record: WebhookRecord = {
      index: this.nextIndex++,
      topic: input.topic,
      shop: input.shop,
      subscriptionId: input.subscriptionId,
      url: input.url,
      body: input.body,
      hmac: shopifyWebhookHmac(input.body, input.delivery === "bad_signature" ? WRONG_SECRET : this.options.secret),
      eventId: input.eventId,
      webhookId: randomUUID(),
      triggeredAt: input.triggeredAt,
      apiVersion: input.apiVersion,
      delivery: input.delivery,
      ...(input.duplicateOf === undefined ? {} : { duplicateOf: input.duplicateOf }),
      state: "pending",
      attempts: [],
    };
    const settled = this.deliver(record, this.abort.signal);
    this.records.push({ record, settled });
    if (this.records.length > KEEP_RECORDS) this.records.splice(0, this.records.length - KEEP_RECORDS);
    return structuredClone(record);
  }

  private async deliver(record: WebhookRecord, stop: AbortSignal) {
    for (let attempt = 0; attempt < this.options.attempts; attempt++) {
      if (!(await pause(this.options.delayMs * 2 ** attempt, stop))) return this.giveUp(record, "The sandbox was reset or closed.");
      const at = new Date(this.options.now()).toISOString();
      try {
        const response = await fetch(record.url, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "User-Agent": "Shopify-Captain-Hook",
            "X-Shopify-Topic": record.topic,
            "X-Shopify-Hmac-Sha256": record.hmac,
            "X-Shopify-Shop-Domain": record.shop,
            "X-Shopify-API-Version": record.apiVersion,
            "X-Shopify-Webhook-Id": record.webhookId,
            "X-Shopify-Event-Id": record.eventId,
            "X-Shopify-Triggered-At": record.triggeredAt,
          },
          body: record.body,
          redirect: "manual",
          signal: AbortSignal.any([stop, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
        });
        await response.body?.cancel().catch(() => {});
        record.attempts.push({ at, status: response.status });
        if (response.status >= 200 && response.status < 300) {
          record.state = "delivered";
          return;
        }
      } catch (error) {
        if (stop.aborted) return this.giveUp(record, "The sandbox was reset or closed.");
        record.attempts.push({ at, error: error instanceof Error ? error.message : String(error) });
      }
    }
    record.state = "failed";
  }

  private giveUp(record: WebhookRecord, error: string) {
    record.attempts.push({ at: new Date(this.options.now()).toISOString(), error });
    record.state = "failed";
  }
}

function pause(ms: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    timer.unref?.();
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    stop.addEventListener("abort", onAbort, { once: true });
  });
}
