import { randomUUID } from "node:crypto";
import type { DeliveryChaos, DeliveryRecord } from "./types";
import { serializeLikeMeta, signPayload } from "./util";

export interface WebhookChange {
  field: string;
  value: unknown;
}

interface Queued {
  entryId: string;
  time?: number;
  change: WebhookChange;
}

interface Delivery extends DeliveryRecord {
  settled: Promise<void>;
  settle: () => void;
  generation: number;
}

export interface WebhookSenderOptions {
  appSecret: string;
  url: () => string;
  attempts: number;
  baseDelayMs: number;
  batchWindowMs: number;
  now: () => number;
}

const MAX_CHANGES_PER_POST = 1000;
const REQUEST_TIMEOUT_MS = 10_000;
const REORDER_HOLD_MS = 250;
const KEEP_RECORDS = 1000;

/**
 * Meta's webhook delivery: changes queued within the batch window go out as one signed POST
 * (grouped by entry id, at most 1000 changes), non-200 answers and network errors are retried
 * with the same bytes and exponential backoff, and optional chaos duplicates, delays or reverses
 * deliveries.
 */
export class WebhookSender {
  private queue: Queued[] = [];
  private batchTimer: ReturnType<typeof setTimeout> | undefined;
  private held: Delivery[] = [];
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  private records: Delivery[] = [];
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private releases = new Set<Promise<void>>();
  private chaos: Required<DeliveryChaos> = { duplicate: 0, reorder: false, delayMs: 0 };
  private generation = 0;
  private closed = false;

  constructor(private readonly options: WebhookSenderOptions) {}

  getChaos(): Required<DeliveryChaos> {
    return { ...this.chaos };
  }

  /** Replaces the chaos settings; anything left out is switched off. */
  setChaos(chaos: DeliveryChaos) {
    const duplicate = chaos.duplicate ?? 0;
    const delayMs = chaos.delayMs ?? 0;
    if (!Number.isInteger(duplicate) || duplicate < 0 || duplicate > 10)
      throw new Error("chaos.duplicate must be a whole number from 0 to 10.");
    if (!Number.isFinite(delayMs) || delayMs < 0 || delayMs > 120_000) throw new Error("chaos.delayMs must be between 0 and 120000.");
    if (chaos.reorder !== undefined && typeof chaos.reorder !== "boolean") throw new Error("chaos.reorder must be true or false.");
    this.chaos = { duplicate, reorder: chaos.reorder ?? false, delayMs };
  }

  /** Queues one change; it goes out with the others queued within the batch window. */
  enqueue(entryId: string, change: WebhookChange, time?: number) {
    if (this.closed) throw new Error("The Meta sandbox is closed.");
    this.queue.push({ entryId, change, time });
    if (!this.batchTimer) {
      this.batchTimer = setTimeout(() => {
        this.batchTimer = undefined;
        this.drainQueue();
      }, this.options.batchWindowMs);
    }
  }

  /** One delivery of an arbitrary envelope, bypassing batching and chaos; resolves when it settles. */
  async sendRaw(body: unknown): Promise<void> {
    if (this.closed) throw new Error("The Meta sandbox is closed.");
    const bytes = serializeLikeMeta(body);
    const delivery = this.createDelivery(bytes, fieldsOf(body));
    void this.attempt(delivery);
    await delivery.settled;
  }

  /** Resolves once nothing is queued, held or pending (every delivery delivered or given up). */
  async flush(): Promise<void> {
    for (;;) {
      if (this.batchTimer) {
        clearTimeout(this.batchTimer);
        this.batchTimer = undefined;
        this.drainQueue();
      }
      if (this.holdTimer) {
        clearTimeout(this.holdTimer);
        this.holdTimer = undefined;
        this.release();
      }
      const waiting = [...this.records.filter((d) => d.state === "pending").map((d) => d.settled), ...this.releases];
      if (waiting.length === 0 && this.queue.length === 0 && this.held.length === 0) return;
      await Promise.all(waiting);
    }
  }

  list(): DeliveryRecord[] {
    return this.records.map(publicRecord);
  }

  /** Drops everything queued or pending, forgets the records and switches chaos off. */
  reset() {
    this.stopAll("sandbox reset");
    this.records = [];
    this.chaos = { duplicate: 0, reorder: false, delayMs: 0 };
  }

  close() {
    this.stopAll("sandbox closed");
    this.closed = true;
  }

  private stopAll(reason: string) {
    this.generation++;
    if (this.batchTimer) clearTimeout(this.batchTimer);
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.batchTimer = this.holdTimer = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.queue = [];
    this.held = [];
    for (const d of this.records) {
      if (d.state === "pending") {
        d.state = "failed";
        d.lastError = reason;
        d.settle();
      }
    }
  }

  private drainQueue() {
    const items = this.queue;
    this.queue = [];
    if (items.length === 0) return;
    const envelopes = this.chaos.reorder ? items.map((item) => envelope([item])) : batch(items);
    const deliveries: Delivery[] = [];
    for (const body of envelopes) {
      const bytes = serializeLikeMeta(body);
      const original = this.createDelivery(bytes, fieldsOf(body));
      deliveries.push(original);
      for (let i = 0; i < this.chaos.duplicate; i++) deliveries.push(this.createDelivery(bytes, original.fields, original.id));
    }
    if (this.chaos.reorder) {
      this.held.push(...deliveries);
      if (!this.holdTimer) {
        this.holdTimer = setTimeout(
          () => {
            this.holdTimer = undefined;
            this.release();
          },
          Math.max(REORDER_HOLD_MS, this.options.batchWindowMs),
        );
      }
      return;
    }
    for (const d of deliveries) void this.start(d);
  }

  /** Sends the held deliveries newest first, one after another, so the receiver sees them reversed. */
  private release() {
    const held = this.held.reverse();
    this.held = [];
    const run = (async () => {
      for (const d of held) await this.start(d);
    })();
    this.releases.add(run);
    void run.finally(() => this.releases.delete(run));
  }

  /** The first attempt (after the chaos delay); resolves when that attempt has an answer. */
  private async start(d: Delivery) {
    const delay = this.chaos.delayMs;
    if (delay > 0) await this.sleep(delay, d.generation);
    if (d.state !== "pending" || d.generation !== this.generation) return;
    await this.attempt(d);
  }

  private createDelivery(body: string, fields: string[], copyOf?: string): Delivery {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const d: Delivery = {
      id: randomUUID(),
      at: new Date(this.options.now()).toISOString(),
      url: this.options.url(),
      fields,
      body,
      signature: signPayload(body, this.options.appSecret),
      attempts: 0,
      lastStatus: null,
      state: "pending",
      ...(copyOf ? { copyOf } : {}),
      settled,
      settle,
      generation: this.generation,
    };
    this.records.push(d);
    this.prune();
    return d;
  }

  private prune() {
    if (this.records.length <= KEEP_RECORDS) return;
    const excess = this.records.length - KEEP_RECORDS;
    let dropped = 0;
    this.records = this.records.filter((d) => (dropped < excess && d.state !== "pending" ? (dropped++, false) : true));
  }

  private async attempt(d: Delivery): Promise<void> {
    if (d.state !== "pending" || d.generation !== this.generation) return;
    d.attempts++;
    d.url = this.options.url();
    let ok = false;
    try {
      const response = await fetch(d.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Hub-Signature-256": d.signature, "User-Agent": "facebookexternalua" },
        body: d.body,
        redirect: "manual",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      d.lastStatus = response.status;
      delete d.lastError;
      await response.arrayBuffer().catch(() => undefined);
      ok = response.status === 200;
      if (!ok) d.lastError = `HTTP ${response.status}`;
    } catch (error) {
      d.lastStatus = null;
      d.lastError = error instanceof Error ? `${error.name}: ${error.message}${causeOf(error)}` : String(error);
    }
    if (d.state !== "pending" || d.generation !== this.generation) return;
    if (ok) {
      d.state = "delivered";
      d.settle();
    } else if (d.attempts >= this.options.attempts) {
      d.state = "failed";
      d.settle();
    } else {
      const wait = this.options.baseDelayMs * 2 ** (d.attempts - 1);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.attempt(d);
      }, wait);
      this.timers.add(timer);
    }
  }

  private sleep(ms: number, generation: number) {
    return new Promise<void>((resolve) => {
      if (generation !== this.generation) return resolve();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function causeOf(error: Error) {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : "";
}

function publicRecord(d: Delivery): DeliveryRecord {
  const { settled: _s, settle: _t, generation: _g, ...rest } = d;
  return { ...rest, fields: [...rest.fields] };
}

function envelope(items: Queued[]) {
  const entries = new Map<string, { id: string; time?: number; changes: WebhookChange[] }>();
  for (const item of items) {
    let entry = entries.get(item.entryId);
    if (!entry) {
      entry = { id: item.entryId, changes: [] };
      entries.set(item.entryId, entry);
    }
    if (item.time !== undefined) entry.time = Math.max(entry.time ?? 0, item.time);
    entry.changes.push(item.change);
  }
  return {
    object: "whatsapp_business_account",
    entry: [...entries.values()].map((e) =>
      e.time === undefined ? { id: e.id, changes: e.changes } : { id: e.id, time: e.time, changes: e.changes },
    ),
  };
}

/** Groups queued changes into envelopes of at most 1000 changes, entries keyed by id. */
function batch(items: Queued[]) {
  const envelopes = [];
  for (let i = 0; i < items.length; i += MAX_CHANGES_PER_POST) envelopes.push(envelope(items.slice(i, i + MAX_CHANGES_PER_POST)));
  return envelopes;
}

function fieldsOf(body: unknown): string[] {
  const fields = new Set<string>();
  const entries = (body as { entry?: unknown })?.entry;
  if (Array.isArray(entries)) {
    for (const entry of entries) {
      const changes = (entry as { changes?: unknown })?.changes;
      if (Array.isArray(changes))
        for (const c of changes) if (typeof (c as { field?: unknown })?.field === "string") fields.add((c as { field: string }).field);
    }
  }
  return [...fields];
}
