import { createHmac } from "node:crypto";

export interface WebhookAttempt {
  at: string;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  error?: string;
}

export interface WebhookRecord {
  index: number;
  event: string;
  reference: string;
  url: string | null;
  /** The exact bytes sent (and signed). */
  body: string;
  signature: string;
  state: "pending" | "delivered" | "failed";
  attempts: WebhookAttempt[];
  /** A redelivery through the control API: the index of the webhook it repeats. */
  resendOf?: number;
}

interface Delivery {
  record: WebhookRecord;
  settled: Promise<void>;
}

export interface WebhookSenderOptions {
  secretKey: string;
  url: () => string | undefined;
  /** Before the first attempt, and the base of the backoff between attempts (doubling). 0: at once. */
  delayMs: number;
  attempts: number;
  now: () => number;
}

const REQUEST_TIMEOUT_MS = 10_000;
const KEEP_RECORDS = 1000;

/** Paystack's `x-paystack-signature`: HMAC-SHA512 of the raw body with the secret key, hex. */
export function paystackSignature(body: string | Buffer, secretKey: string) {
  return createHmac("sha512", secretKey).update(body).digest("hex");
}

/**
 * Paystack's webhook delivery: a signed JSON POST, retried with backoff until the receiver answers
 * 200 (anything else, or no answer, is a failure), at most `attempts` times. Records are kept (the
 * last 1000) for the console and the control API, which can also redeliver one.
 */
export class WebhookSender {
  private deliveries: Delivery[] = [];
  private nextIndex = 0;
  private abort = new AbortController();
  private closed = false;

  constructor(private readonly options: WebhookSenderOptions) {}

  /** Queues an event; it goes out after the delay. Returns its record. */
  send(event: string, reference: string, data: unknown): WebhookRecord {
    return this.start(event, reference, JSON.stringify({ event, data }));
  }

  /** Sends a recorded webhook's exact bytes again, as a new record. */
  resend(index: number): WebhookRecord | undefined {
    const original = this.deliveries.find((d) => d.record.index === index)?.record;
    if (!original) return undefined;
    return this.start(original.event, original.reference, original.body, original.index);
  }

  list(): WebhookRecord[] {
    return this.deliveries.map((d) => structuredClone(d.record));
  }

  /** Resolves once no delivery is pending (each delivered or given up). */
  async flush() {
    for (;;) {
      const pending = this.deliveries.filter((d) => d.record.state === "pending");
      if (pending.length === 0) return;
      await Promise.all(pending.map((d) => d.settled));
    }
  }

  /** Stops every delivery under way and forgets the records. */
  reset() {
    this.abort.abort();
    this.abort = new AbortController();
    this.deliveries = [];
  }

  close() {
    this.closed = true;
    this.abort.abort();
  }

  private start(event: string, reference: string, body: string, resendOf?: number): WebhookRecord {
    if (this.closed) throw new Error("The Paystack sandbox is closed.");
    const record: WebhookRecord = {
      index: this.nextIndex++,
      event,
      reference,
      url: this.options.url() ?? null,
      body,
      signature: paystackSignature(body, this.options.secretKey),
      state: "pending",
      attempts: [],
      ...(resendOf === undefined ? {} : { resendOf }),
    };
    const settled = this.deliver(record, this.abort.signal);
    this.deliveries.push({ record, settled });
    if (this.deliveries.length > KEEP_RECORDS) this.deliveries.splice(0, this.deliveries.length - KEEP_RECORDS);
    return structuredClone(record);
  }

  private async deliver(record: WebhookRecord, stop: AbortSignal) {
    for (let attempt = 0; attempt < this.options.attempts; attempt++) {
      const delay = this.options.delayMs * 2 ** attempt;
      if (!(await pause(delay, stop))) return this.giveUp(record, "The sandbox was reset or closed.");
      if (!record.url) return this.giveUp(record, "No webhook URL is set.");
      const at = new Date(this.options.now()).toISOString();
      try {
        const response = await fetch(record.url, {
          method: "POST",
          headers: { "Content-Type": "application/json", "x-paystack-signature": record.signature, "User-Agent": "Paystack-Sandbox" },
          body: record.body,
          redirect: "manual",
          signal: AbortSignal.any([stop, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
        });
        await response.body?.cancel().catch(() => {});
        record.attempts.push({ at, status: response.status });
        if (response.status === 200) {
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

/** Waits `ms` (0: a tick); false when stopped first. */
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
