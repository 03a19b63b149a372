import { useEffect, useState } from "react";
import type { ShownNotification } from "./notification-item";

export interface BellState {
  unread: number;
  /** The latest five; null in the page's own data, which carries only the count (issue 42). */
  items: ShownNotification[] | null;
}

/**
 * The bell as it changes: the shell's own count first (again whenever that data changes), then each
 * `bell` event of /notifications/events (decision 031). The stream's first event is the bell as it
 * is, latest five included, so a reconnection catches up by itself; a stream the server refuses (a
 * restart, a 503) is opened again after a pause that grows to half a minute. The page's data carries
 * no items: those the stream brought are kept when the page changes. Without JavaScript the count is all.
 */
export function useLiveBell(initial: BellState): BellState {
  const initialKey = JSON.stringify(initial);
  const [state, setState] = useState({ key: initialKey, bell: initial });
  if (state.key !== initialKey) setState({ key: initialKey, bell: { ...initial, items: initial.items ?? state.bell.items } });
  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    const open = () => {
      const stream = new EventSource("/notifications/events");
      source = stream;
      stream.addEventListener("bell", (event) => {
        failures = 0;
        const bell = JSON.parse((event as MessageEvent<string>).data) as BellState;
        setState((current) => ({ ...current, bell }));
      });
      stream.addEventListener("error", () => {
        // A dropped connection the browser reopens by itself; one the server refused it gives up on.
        if (stream.readyState !== EventSource.CLOSED || stopped) return;
        retry = setTimeout(open, Math.min(30_000, 2000 * 2 ** failures++));
      });
    };
    open();
    return () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      source?.close();
    };
  }, []);
  return state.key === initialKey ? state.bell : { ...initial, items: initial.items ?? state.bell.items };
}
