/**
 * Work due a fixed delay from now, on one timer for everything. Each delay has its own queue,
 * which stays in due order because every item in it waits the same time: adding is a push, the
 * timer pops what is due. At 1,000 messages a second with three statuses each, that is three
 * pushes per message and one timer, not three thousand timers.
 *
 * Delays run on the real clock (the sandbox clock may be frozen in tests); a delay of 0 runs at once.
 */
export class Later {
  private queues = new Map<number, { items: { dueAt: number; run: () => void }[]; head: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDueAt = Infinity;
  private stopped = false;

  constructor(private readonly onError: (error: unknown) => void = () => {}) {}

  /** Runs `run` in `delayMs` (at once when 0). */
  at(delayMs: number, run: () => void) {
    if (this.stopped) return;
    if (delayMs <= 0) return this.safely(run);
    let queue = this.queues.get(delayMs);
    if (!queue) {
      queue = { items: [], head: 0 };
      this.queues.set(delayMs, queue);
    }
    const dueAt = performance.now() + delayMs;
    queue.items.push({ dueAt, run });
    if (dueAt < this.timerDueAt) this.arm(dueAt);
  }

  /** How many items wait. */
  get pending() {
    let count = 0;
    for (const q of this.queues.values()) count += q.items.length - q.head;
    return count;
  }

  /** Drops everything waiting. */
  clear() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = Infinity;
    this.queues.clear();
  }

  close() {
    this.clear();
    this.stopped = true;
  }

  private arm(dueAt: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => this.fire(), Math.max(0, dueAt - performance.now()));
    this.timer.unref?.();
  }

  private fire() {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    // A millisecond of slack: setTimeout may fire a fraction early.
    const now = performance.now() + 1;
    for (const [delay, queue] of this.queues) {
      while (queue.head < queue.items.length && queue.items[queue.head]!.dueAt <= now) this.safely(queue.items[queue.head++]!.run);
      if (queue.head === queue.items.length) this.queues.delete(delay);
      else if (queue.head > 1024) {
        // Drop the run part of the array now and then, not on every pop.
        queue.items = queue.items.slice(queue.head);
        queue.head = 0;
      }
    }
    // Work run above may have added items: the next due time is read after it.
    let next = Infinity;
    for (const queue of this.queues.values()) next = Math.min(next, queue.items[queue.head]!.dueAt);
    if (next < this.timerDueAt && !this.stopped) this.arm(next);
  }

  private safely(run: () => void) {
    try {
      run();
    } catch (error) {
      this.onError(error);
    }
  }
}
