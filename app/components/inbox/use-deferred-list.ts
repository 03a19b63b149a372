import { useEffect, useMemo, useRef } from "react";
import { useFetcher } from "react-router";
import type { ConversationListRow } from "~/lib/inbox";
import type { ListPlaceView } from "./conversation-list";

/** What /chat's loader answers: the list beside a conversation on a wide screen. */
export interface ConversationListData {
  rows: ConversationListRow[];
  next: string | null;
  numbers: { id: string; label: string }[];
  place: ListPlaceView;
  now: string;
}

/** As wide as the inbox shows the list beside the thread (Tailwind's `md`). */
const SIDE_BY_SIDE = "(min-width: 48rem)";

/**
 * The conversation list beside a thread, asked of /chat once the thread is drawn and only on a
 * screen wide enough to show both: a phone shows the thread alone and never downloads the list
 * (issue 42). Without JavaScript the pane links to the list instead. The thread's own row reads as
 * opened: the page marked it so before the list was read, except for a reader who does not mark.
 */
export function useDeferredList(listSearch: string, openedId: string): ConversationListData | null {
  const { load, data: answer, state } = useFetcher<ConversationListData>();
  // Asked again for another conversation, as the whole page was: the rows the live stream changed
  // since are read afresh rather than kept from the first answer.
  const asked = useRef<string | null>(null);
  useEffect(() => {
    const wide = window.matchMedia(SIDE_BY_SIDE);
    const ask = () => {
      const key = `${listSearch} ${openedId}`;
      if (!wide.matches || asked.current === key) return;
      asked.current = key;
      void load(`/chat${listSearch}`);
    };
    ask();
    wide.addEventListener("change", ask);
    return () => wide.removeEventListener("change", ask);
  }, [listSearch, openedId, load]);
  // A load that came back empty-handed (aborted by a submission and not taken up again): asked once
  // more when the fetcher is idle with nothing, rather than leave the pane without its list.
  const settled = state === "idle" && answer === undefined;
  const wasLoading = useRef(false);
  const retried = useRef<string | null>(null);
  useEffect(() => {
    if (state !== "idle") wasLoading.current = true;
  }, [state]);
  useEffect(() => {
    if (!settled || !wasLoading.current || retried.current === asked.current || !window.matchMedia(SIDE_BY_SIDE).matches) return;
    wasLoading.current = false;
    retried.current = asked.current;
    void load(`/chat${listSearch}`);
  }, [settled, listSearch, load]);
  const data = answer ?? null;
  return useMemo(
    () => (data ? { ...data, rows: data.rows.map((row) => (row.id === openedId ? { ...row, unread: 0 } : row)) } : null),
    [data, openedId],
  );
}
