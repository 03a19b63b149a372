import type { CallbackKind, CallbackRecord } from "./types";

const KEEP = 500;
const ANSWER_CHARS = 2048;

export interface PostResult {
  status: number | null;
  answer?: string;
  error?: string;
}

/**
 * The sandbox's outgoing POSTs (STK callbacks, C2B validation and confirmation): sends them,
 * keeps a log of what went where and what came back, and tracks scheduled work so tests can
 * wait for it (flush) instead of for time. Safaricom does not retry a callback, so neither does this.
 */
export class CallbackPoster {
  private records: CallbackRecord[] = [];
  private nextId = 1;
  private work = new Set<Promise<unknown>>();
  private timers = new Map<ReturnType<typeof setTimeout>, () => void>();
  private closed = false;

  constructor(private readonly options: { fetch: typeof fetch; timeoutMs: number; now: () => number }) {}

  /** POSTs `body` as JSON to `url` once and logs it. */
  async post(kind: CallbackKind, ref: string, url: string, body: unknown, copy = 1, timeoutMs = this.options.timeoutMs) {
    const result = await this.send(url, body, timeoutMs);
    return { record: this.log({ kind, ref, url, body, copy, lost: false, ...result }), result };
  }

  /** Logs a callback that chaos keeps from ever leaving. */
  lost(kind: CallbackKind, ref: string, url: string, body: unknown) {
    return this.log({ kind, ref, url, body, copy: 1, lost: true, status: null });
  }

  /** Runs `task` after `delayMs` (at once for 0), tracked for flush(); skipped if the sandbox closes first. */
  schedule<T>(delayMs: number, task: () => Promise<T>): Promise<T | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const run = new Promise<T | undefined>((resolve, reject) => {
      if (delayMs <= 0) return void task().then(resolve, reject);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        task().then(resolve, reject);
      }, delayMs);
      timer.unref?.();
      this.timers.set(timer, () => resolve(undefined));
    });
    const tracked = run.catch(() => undefined);
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
    return run;
  }

  /** Resolves once nothing is scheduled or in flight (work scheduled meanwhile included). */
  async flush() {
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  list(): CallbackRecord[] {
    return [...this.records];
  }

  reset() {
    this.cancelTimers();
    this.records = [];
  }

  close() {
    this.closed = true;
    this.cancelTimers();
  }

  private cancelTimers() {
    for (const [timer, skip] of this.timers) {
      clearTimeout(timer);
      skip();
    }
    this.timers.clear();
  }

  private async send(url: string, body: unknown, timeoutMs: number): Promise<PostResult> {
    try {
      const response = await this.options.fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "User-Agent": "Apache-HttpClient/4.5.13 (Java/1.8.0_392)" },
        body: JSON.stringify(body),
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text().catch(() => "");
      return { status: response.status, answer: text.slice(0, ANSWER_CHARS) };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      return { status: null, error: timedOut ? `No answer within ${timeoutMs} ms.` : errorText(error) };
    }
  }

  private log(entry: Omit<CallbackRecord, "id" | "at">): CallbackRecord {
    const record: CallbackRecord = { id: this.nextId++, at: new Date(this.options.now()).toISOString(), ...entry };
    this.records.push(record);
    if (this.records.length > KEEP) this.records.splice(0, this.records.length - KEEP);
    return record;
  }
}

function errorText(error: unknown) {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message} (${cause.code})` : error.message;
}
