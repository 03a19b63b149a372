import { onAvailabilityChange } from "../db/availability";

/**
 * The wait between polls of a worker loop: `idle(ms)` sleeps until the time is up, the loop is
 * woken (`wake`, e.g. new work in this process) or the database comes back after an outage. A wake
 * that comes while the loop is busy is kept, so the next `idle` returns at once; `begin()` at the
 * top of each round clears it. `stop()` ends any wait and unhooks the outage watch.
 */
export function createIdler() {
  let running = true;
  let woken = false;
  let release: (() => void) | undefined;
  const wake = () => {
    woken = true;
    release?.();
  };
  const stopWatching = onAvailabilityChange((available) => {
    if (available) wake();
  });
  return {
    wake,
    get running() {
      return running;
    },
    begin() {
      woken = false;
    },
    idle(ms: number) {
      return new Promise<void>((resolve) => {
        if (woken || !running) return resolve();
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          release = undefined;
          resolve();
        }
        release = done;
      });
    },
    stop() {
      running = false;
      stopWatching();
      release?.();
    },
  };
}
