import { useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import type { LiveFigures } from "~/lib/campaign-live";

/**
 * A campaign's figures as they change: the page's own first (again whenever the page's data
 * changes), then each `figures` event of /messaging/campaigns/:id/events while it is live. A change
 * of status reloads the page's data (its buttons and results); the server closes the stream once
 * the campaign has ended, and the hook does not reconnect then.
 */
export function useCampaignLive(id: string, initial: LiveFigures, live: boolean) {
  const initialKey = JSON.stringify(initial);
  const [state, setState] = useState({ key: initialKey, figures: initial });
  if (state.key !== initialKey) setState({ key: initialKey, figures: initial });
  const revalidator = useRevalidator();
  const status = useRef(initial.status);
  const shownStatus = state.key === initialKey ? state.figures.status : initial.status;
  useEffect(() => {
    status.current = shownStatus;
  }, [shownStatus]);
  useEffect(() => {
    if (!live || typeof EventSource === "undefined") return;
    const source = new EventSource(`/messaging/campaigns/${id}/events`);
    source.addEventListener("figures", (event) => {
      const next = JSON.parse((event as MessageEvent<string>).data) as LiveFigures;
      const changed = next.status !== status.current;
      status.current = next.status;
      setState((current) => ({ ...current, figures: next }));
      if (changed) void revalidator.revalidate();
    });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED || ["completed", "cancelled", "failed", "draft"].includes(status.current))
        source.close();
    });
    return () => source.close();
    // The stream is the campaign's: opened once per campaign while it is live.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, live]);
  return state.key === initialKey ? state.figures : initial;
}
