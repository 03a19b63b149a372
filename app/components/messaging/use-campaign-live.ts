import { useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import type { LiveFigures } from "~/lib/campaign-live";

/**
 * A campaign's figures as they change: the page's own first (again whenever the page's data
 * changes), then each `figures` event of /messaging/campaigns/:id/events while `live` (it sends,
 * waits, or has ended within the time its statuses are followed, decision 049). A change of status
 * reloads the page's data (its buttons and results). The server says `end` when nothing more can
 * move, and the hook closes the stream then; a dropped connection the browser opens again, and a
 * stream the server refuses is opened again after a pause, the page's data read meanwhile.
 */
export function useCampaignLive(id: string, initial: LiveFigures, live: boolean) {
  const initialKey = JSON.stringify(initial);
  const [state, setState] = useState({ key: initialKey, figures: initial });
  if (state.key !== initialKey) setState({ key: initialKey, figures: initial });
  const reload = useOneReloadAtATime();
  const status = useRef(initial.status);
  const shownStatus = state.key === initialKey ? state.figures.status : initial.status;
  useEffect(() => {
    status.current = shownStatus;
  }, [shownStatus]);
  useEffect(() => {
    if (!live || typeof EventSource === "undefined") return;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    const open = () => {
      const stream = new EventSource(`/messaging/campaigns/${id}/events`);
      source = stream;
      stream.addEventListener("figures", (event) => {
        failures = 0;
        const next = JSON.parse((event as MessageEvent<string>).data) as LiveFigures;
        const changed = next.status !== status.current;
        status.current = next.status;
        setState((current) => ({ ...current, figures: next }));
        if (changed) reload();
      });
      stream.addEventListener("end", () => {
        stopped = true;
        stream.close();
      });
      stream.addEventListener("error", () => {
        // The server refused the stream (a 503 while the database restarts, a proxy's 502): the
        // browser gives up on it, so the hook reads the page again and reopens it after a pause
        // that grows to half a minute. A dropped connection the browser reopens by itself.
        if (stream.readyState !== EventSource.CLOSED || stopped) return;
        reload();
        retry = setTimeout(open, Math.min(30_000, 2000 * 2 ** failures++));
      });
    };
    open();
    return () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      source?.close();
    };
    // The stream is the campaign's: opened once per campaign while it is followed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, live]);
  return state.key === initialKey ? state.figures : initial;
}

/**
 * Reads the page's data again, one read at a time: a status change that arrives while a read is on
 * its way waits for it, then reads once more. A second read started meanwhile would abort the first,
 * and React Router's data request can then fail with an uncaught AbortError in the browser
 * (remix-run/react-router#14761).
 */
function useOneReloadAtATime() {
  const revalidator = useRevalidator();
  const latest = useRef(revalidator);
  useEffect(() => {
    latest.current = revalidator;
  });
  const running = useRef(false);
  const again = useRef(false);
  const reload = () => {
    if (running.current) {
      again.current = true;
      return;
    }
    running.current = true;
    void latest.current
      .revalidate()
      .catch(() => undefined)
      .finally(() => {
        running.current = false;
        if (!again.current) return;
        again.current = false;
        reload();
      });
  };
  return reload;
}
