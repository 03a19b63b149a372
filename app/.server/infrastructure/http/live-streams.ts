/** One server-sent event: its name, its data (lines), and the id a reconnecting browser sends back. */
export interface LiveEvent {
  event: string;
  data: string;
  id?: string;
}
export type Send = (event: LiveEvent) => void;
/** Starts a stream's work: `send` writes an event, `end` ends the stream. Answers its cleanup. */
export type LiveStreamInit = (send: Send, end: () => void) => () => void;

/** Each open stream's way to end it, so a shutdown can end them all. */
const open = new Set<() => void>();
let ending = false;

const encoder = new TextEncoder();

function eventText({ event, data, id }: LiveEvent) {
  const lines = data.split("\n").map((line) => `data: ${line}\n`);
  return `${id ? `id: ${id}\n` : ""}event: ${event}\n${lines.join("")}\n`;
}

/**
 * A server-sent event stream (the bell, the inbox, a campaign's figures). Its cleanup runs once,
 * whichever way it ends:
 * - the browser goes away: the request's signal aborts, or the response's writer cancels the body
 *   (a write then would throw, from a timer ending the process: `send` is quiet once ended);
 * - the work is done (`end`, a campaign that has finished);
 * - this instance shuts down (`endLiveStreams`). The response then finishes properly, its last chunk
 *   sent, so the browser's EventSource reconnects (through nginx, to an instance still running)
 *   instead of seeing a broken response, and the instance need not wait for streams that would
 *   never finish by themselves.
 * nginx must not buffer it (X-Accel-Buffering).
 */
export function liveStream(request: Request, init: LiveStreamInit): Response {
  let cancel = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let finished = false;
      let cleanup: (() => void) | undefined;
      const finish = (closeBody: boolean) => {
        if (finished) return;
        finished = true;
        open.delete(end);
        request.signal.removeEventListener("abort", end);
        cleanup?.();
        if (closeBody) controller.close();
      };
      const end = () => finish(true);
      cancel = () => finish(false);
      const send: Send = (event) => {
        if (finished) return;
        try {
          controller.enqueue(encoder.encode(eventText(event)));
        } catch {
          cancel();
        }
      };
      open.add(end);
      request.signal.addEventListener("abort", end, { once: true });
      const stop = init(send, end);
      // Ended while starting (a campaign already over): its cleanup is known only now.
      if (finished) stop();
      else cleanup = stop;
      if (ending || request.signal.aborted) end();
    },
    cancel() {
      cancel();
    },
  });
  return new Response(body, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" },
  });
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
