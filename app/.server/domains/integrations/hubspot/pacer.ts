/**
 * Keeps Jumbe's calls to one HubSpot portal under its burst limit (decision 083): at most `max`
 * calls start in any `intervalMs` (a rolling window, as HubSpot counts them), per app and portal, in
 * this process. The limit is learnt from HubSpot's own headers (X-HubSpot-RateLimit-Max and
 * -Interval-Milliseconds); until the first answer it is HubSpot's default, 100 per 10 s. A call
 * waits its turn; nothing is dropped. Another instance's calls are not seen here: a 429 then says
 * so, and the caller waits as HubSpot asks (calls.ts).
 */
export interface PaceLimit {
  max: number;
  intervalMs: number;
}

export const HUBSPOT_DEFAULT_LIMIT: PaceLimit = { max: 100, intervalMs: 10_000 };

interface Window {
  limit: PaceLimit;
  starts: number[];
  /** Callers waiting, in order. */
  queue: (() => void)[];
  timer: ReturnType<typeof setTimeout> | null;
  /** No call starts before this (a 429 asked to wait). */
  pausedUntil: number;
}

const windows = new Map<string, Window>();

function windowOf(key: string): Window {
  let window = windows.get(key);
  if (!window) {
    window = { limit: { ...HUBSPOT_DEFAULT_LIMIT }, starts: [], queue: [], timer: null, pausedUntil: 0 };
    windows.set(key, window);
  }
  return window;
}

function pump(window: Window) {
  if (window.timer) return;
  for (;;) {
    if (!window.queue.length) return;
    const now = Date.now();
    window.starts = window.starts.filter((at) => at > now - window.limit.intervalMs - Math.max(25, window.limit.intervalMs / 100));
    let waitMs = window.pausedUntil - now;
    // A margin past the window: HubSpot counts a call when it arrives, a little after it starts here.
    const margin = Math.max(25, window.limit.intervalMs / 100);
    if (waitMs <= 0 && window.starts.length >= window.limit.max) waitMs = window.starts[0]! + window.limit.intervalMs + margin - now;
    if (waitMs > 0) {
      window.timer = setTimeout(() => {
        window.timer = null;
        pump(window);
      }, waitMs);
      return;
    }
    window.starts.push(now);
    window.queue.shift()!();
  }
}

/** Waits for the portal's next free place in the window, then counts the call as started. */
export function paceCall(key: string): Promise<void> {
  const window = windowOf(key);
  return new Promise((resolve) => {
    window.queue.push(resolve);
    pump(window);
  });
}

/** HubSpot's answer said what its limit is: the window follows it. */
export function learnLimit(key: string, limit: PaceLimit) {
  const window = windowOf(key);
  if (window.limit.max !== limit.max || window.limit.intervalMs !== limit.intervalMs) window.limit = { ...limit };
}

/** HubSpot answered 429: no call to this portal starts for `ms`. */
export function pausePortal(key: string, ms: number) {
  const window = windowOf(key);
  window.pausedUntil = Math.max(window.pausedUntil, Date.now() + ms);
}

/** Forgets every window (tests). */
export function resetPacer() {
  for (const window of windows.values()) if (window.timer) clearTimeout(window.timer);
  windows.clear();
}
