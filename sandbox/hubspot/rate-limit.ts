/** HubSpot's burst limit: `max` calls in any `intervalMs` (a rolling window) per app and portal. */
export interface RateLimit {
  max: number;
  intervalMs: number;
}

export interface RateVerdict {
  allowed: boolean;
  max: number;
  remaining: number;
  intervalMs: number;
  /** When the oldest call in the window leaves it (for a 429). */
  retryAfterMs: number;
}

/** Counts calls per key (app and portal) in a rolling window; refused calls do not count. */
export class RollingLimiter {
  private calls = new Map<string, number[]>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {}

  take(key: string): RateVerdict {
    const now = this.now();
    const recent = (this.calls.get(key) ?? []).filter((at) => at > now - this.limit.intervalMs);
    const allowed = recent.length < this.limit.max;
    if (allowed) recent.push(now);
    this.calls.set(key, recent);
    return {
      allowed,
      max: this.limit.max,
      remaining: Math.max(0, this.limit.max - recent.length),
      intervalMs: this.limit.intervalMs,
      retryAfterMs: allowed ? 0 : Math.max(1, recent[0]! + this.limit.intervalMs - now),
    };
  }

  reset() {
    this.calls.clear();
  }
}
