export type CallbackKind = "delivery" | "incoming" | "optout";

export interface CallbackAttempt {
  at: string;
  status?: number;
  error?: string;
}

export interface CallbackRecord {
  index: number;
  kind: CallbackKind;
  username: string;
  url: string | null;
  /** The exact form body sent. */
  body: string;
  /** Delivery reports: the message id and status they carry (what Jumbe dedupes on). */
  messageId?: string;
  status?: string;
  late: boolean;
  /** A chaos copy: the index of the record it repeats. */
  copyOf?: number;
  state: "pending" | "delivered" | "failed";
  attempts: CallbackAttempt[];
}

export interface CallbackChaos {
  /** Extra copies of every POST (0 to 5). */
  duplicate: number;
  /** A message's several delivery reports sent newest first (Success before Buffered). */
  reorder: boolean;
}

export interface CallbackSenderOptions {
  /** Before a first attempt, doubling between retries. 0 in tests. */
  delayMs: number;
  /** Before a late delivery report. */
  lateDelayMs: number;
  attempts: number;
  now: () => number;
  onDelivered?: (record: CallbackRecord) => void;
}

export interface CallbackInput {
  kind: CallbackKind;
  username: string;
  url: string | undefined;
  fields: Record<string, string>;
  messageId?: string;
  status?: string;
  late?: boolean;
}

const REQUEST_TIMEOUT_MS = 10_000;
const KEEP_RECORDS = 2000;

/**
 * AT's callbacks: form-encoded POSTs (delivery reports, incoming messages, opt-outs) to the account's
 * URLs, retried with doubling delays until the receiver answers 200, at most `attempts` times. A
 * group (one message's reports) goes out in order, one after the other; chaos can duplicate POSTs
 * and reverse a group. `flush()` skips every wait (late reports too) and resolves once none is pending.
 */
export class CallbackSender {
  private records: { record: CallbackRecord; settled: Promise<void> }[] = [];
  private nextIndex = 0;
  private abort = new AbortController();
  private hurry = new AbortController();
  private hurrying = 0;
  private closed = false;
  chaos: CallbackChaos = { duplicate: 0, reorder: false };

  constructor(private readonly options: CallbackSenderOptions) {}

  /** Sends the callbacks one after another (each after the previous is delivered or given up). */
  sendGroup(inputs: CallbackInput[]): CallbackRecord[] {
    if (this.closed) throw new Error("The Africa's Talking sandbox is closed.");
    const ordered = this.chaos.reorder ? [...inputs].reverse() : inputs;
    const made: CallbackRecord[] = [];
    for (const input of ordered) {
      const original = this.makeRecord(input);
      made.push(original);
      for (let i = 0; i < this.chaos.duplicate; i++) made.push({ ...this.makeRecord(input), copyOf: original.index });
    }
    const stop = this.abort.signal;
    made.reduce<Promise<void>>((previous, record) => {
      const settled = previous.then(() => this.deliver(record, stop));
      this.records.push({ record, settled });
      return settled;
    }, Promise.resolve());
    if (this.records.length > KEEP_RECORDS) this.records.splice(0, this.records.length - KEEP_RECORDS);
    return made.map((r) => structuredClone(r));
  }

  send(input: CallbackInput) {
    return this.sendGroup([input])[0]!;
  }

  list(): CallbackRecord[] {
    return this.records.map((r) => structuredClone(r.record));
  }

  /** Sends everything pending now, late reports included; resolves once nothing is pending. */
  async flush() {
    this.hurrying++;
    this.hurry.abort();
    try {
      for (;;) {
        const pending = this.records.filter((r) => r.record.state === "pending");
        if (pending.length === 0) return;
        await Promise.all(pending.map((r) => r.settled));
      }
    } finally {
      if (--this.hurrying === 0) this.hurry = new AbortController();
    }
  }

  reset() {
    this.abort.abort();
    this.abort = new AbortController();
    this.records = [];
    this.chaos = { duplicate: 0, reorder: false };
  }

  close() {
    this.closed = true;
    this.abort.abort();
  }

  private makeRecord(input: CallbackInput): CallbackRecord {
    return {
      index: this.nextIndex++,
      kind: input.kind,
      username: input.username,
      url: input.url ?? null,
      body: new URLSearchParams(input.fields).toString(),
      ...(input.messageId ? { messageId: input.messageId } : {}),
      ...(input.status ? { status: input.status } : {}),
      late: input.late === true,
      state: "pending",
      attempts: [],
    };
  }

  private async deliver(record: CallbackRecord, stop: AbortSignal) {
    for (let attempt = 0; attempt < this.options.attempts; attempt++) {
      const wait = attempt === 0 && record.late ? this.options.lateDelayMs : this.options.delayMs * 2 ** attempt;
      if (!(await this.pause(wait, stop))) return this.giveUp(record, "The sandbox was reset or closed.");
      if (!record.url) return this.giveUp(record, `No ${record.kind} callback URL is set for ${record.username}.`);
      const at = new Date(this.options.now()).toISOString();
      try {
        const response = await fetch(record.url, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": "AfricasTalking-Sandbox" },
          body: record.body,
          redirect: "manual",
          signal: AbortSignal.any([stop, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
        });
        await response.body?.cancel().catch(() => {});
        record.attempts.push({ at, status: response.status });
        if (response.status === 200) {
          record.state = "delivered";
          this.options.onDelivered?.(record);
          return;
        }
      } catch (error) {
        if (stop.aborted) return this.giveUp(record, "The sandbox was reset or closed.");
        record.attempts.push({ at, error: error instanceof Error ? error.message : String(error) });
      }
    }
    record.state = "failed";
  }

  private giveUp(record: CallbackRecord, error: string) {
    record.attempts.push({ at: new Date(this.options.now()).toISOString(), error });
    record.state = "failed";
  }

  /** Waits `ms` unless flushed; false when stopped first. */
  private pause(ms: number, stop: AbortSignal): Promise<boolean> {
    if (stop.aborted) return Promise.resolve(false);
    const hurry = this.hurry.signal;
    if (ms <= 0 || this.hurrying > 0 || hurry.aborted) return new Promise((resolve) => setImmediate(() => resolve(!stop.aborted)));
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        stop.removeEventListener("abort", onStop);
        hurry.removeEventListener("abort", onHurry);
        resolve(value);
      };
      const timer = setTimeout(() => done(true), ms);
      timer.unref?.();
      const onStop = () => done(false);
      const onHurry = () => done(true);
      stop.addEventListener("abort", onStop, { once: true });
      hurry.addEventListener("abort", onHurry, { once: true });
    });
  }
}
