/**
 * Keeps Jumbe's calls to one HubSpot portal under its burst limit (decision 083): at most `max`
 * calls start in any `intervalMs` (a rolling window, as HubSpot counts them), per app and portal, in
 * this process. The limit is learnt from HubSpot's own headers (X-HubSpot-RateLimit-Max and
 * -Interval-Milliseconds); until the first answer it is HubSpot's default, 100 per 10 s. A call
 * waits its turn; nothing is dropped. Another instance's calls are not seen here: a 429 then says
 * so, and the caller waits as HubSpot asks (calls.ts).
 *
 * A call's place in the window is counted from its answer, not its start (decision 091): HubSpot
 * counts a call when it arrives, some time after it starts here (the network, or this process's
 * event loop busy with a page's database work), but always before its answer is back. A place held
 * from the start plus a fixed margin was given back too early whenever that delay passed the
 * margin, and each such 429 cost a whole second; from the answer, the next window's call cannot
 * reach HubSpot inside the last one's. The price is one answer's time per window, and the margin
 * past the window is the clock's granularity (10 ms) where it was 1% of the window.
 */
export interface PaceLimit {
  max: number;
  intervalMs: number;
}

export const HUBSPOT_DEFAULT_LIMIT: PaceLimit = { max: 100, intervalMs: 10_000 };

interface Window {
  limit: PaceLimit;
  /** The calls in the window: when each was answered, Infinity while it is under way. */
  starts: number[];
  /** Callers waiting, in order. */
  queue: ((answered: () => void) => void)[];
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
    // A margin past the window for the clock's granularity (a place counts from its answer, so no more is needed).
    const margin = 10;
    window.starts = window.starts.filter((at) => at > now - window.limit.intervalMs - margin);
    let waitMs = window.pausedUntil - now;
    if (waitMs <= 0 && window.starts.length >= window.limit.max) {
      const oldest = Math.min(...window.starts);
      // Every place is held by a call under way: the first answer pumps again.
      if (oldest === Infinity) return;
      waitMs = oldest + window.limit.intervalMs + margin - now;
    }
    if (waitMs > 0) {
      window.timer = setTimeout(() => {
        window.timer = null;
        pump(window);
      }, waitMs);
      return;
    }
    window.starts.push(Infinity);
    let answered = false;
    window.queue.shift()!(() => {
      if (answered) return;
      answered = true;
      // Places under way are alike: any one of them is this call's.
      const at = window.starts.indexOf(Infinity);
      if (at >= 0) window.starts[at] = Date.now();
      pump(window);
    });
  }
}

/**
 * Waits for the portal's next free place in the window and takes it; answers the function to call
 * once HubSpot has answered (or the call failed), from when the place counts.
 */
export function paceCall(key: string): Promise<() => void> {
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
