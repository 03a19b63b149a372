import { eventStream } from "remix-utils/sse/server";

type Init = Parameters<typeof eventStream>[1];

/** Each open stream's way to end it, so a shutdown can end them all. */
const open = new Set<() => void>();
let ending = false;

/**
 * A server-sent event stream (the bell, the inbox, a campaign's figures) that ends when the browser
 * goes away or when this instance shuts down. Ended at shutdown, the response finishes properly
 * (its last chunk sent), so the browser's EventSource reconnects (through nginx, to an instance
 * still running) instead of seeing a broken response, and the instance need not wait for streams
 * that would never finish by themselves. nginx must not buffer it (X-Accel-Buffering).
 */
export function liveStream(request: Request, init: Init): Response {
  const stream = new AbortController();
  const end = () => stream.abort();
  const forget = () => {
    open.delete(end);
    request.signal.removeEventListener("abort", end);
  };
  if (ending || request.signal.aborted) end();
  else {
    open.add(end);
    request.signal.addEventListener("abort", end, { once: true });
  }
  return eventStream(
    stream.signal,
    (send, close) => {
      const cleanup = init(send, close);
      return () => {
        forget();
        cleanup();
      };
    },
    { headers: { "X-Accel-Buffering": "no" } },
  );
}

/** Shutdown: ends every open stream now, and any opened from here on at once. */
export function endLiveStreams(): number {
  ending = true;
  const ended = open.size;
  for (const end of [...open]) end();
  return ended;
}

/** How many streams are open on this instance (tests). */
export function openLiveStreams(): number {
  return open.size;
}
