import { useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import type { LiveFigures } from "~/lib/campaign-live";

/**
 * A campaign's figures as they change: the page's own first, then each `figures` event of
 * /messaging/campaigns/:id/events while it is live. A change of status reloads the page's data
 * (its buttons and results); the stream closes by itself once the campaign has ended.
 */
export function useCampaignLive(id: string, initial: LiveFigures, live: boolean) {
  const [figures, setFigures] = useState(initial);
  const revalidator = useRevalidator();
  const status = useRef(initial.status);
  useEffect(() => {
    setFigures(initial);
    status.current = initial.status;
  }, [initial]);
  useEffect(() => {
    if (!live || typeof EventSource === "undefined") return;
    const source = new EventSource(`/messaging/campaigns/${id}/events`);
    source.addEventListener("figures", (event) => {
      const next = JSON.parse((event as MessageEvent<string>).data) as LiveFigures;
      setFigures(next);
      if (next.status !== status.current) {
        status.current = next.status;
        void revalidator.revalidate();
      }
    });
    // The server closes the stream once the campaign has ended; do not reconnect then.
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED || !["sending", "scheduled", "paused"].includes(status.current)) source.close();
    });
    return () => source.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, live]);
  return figures;
}
