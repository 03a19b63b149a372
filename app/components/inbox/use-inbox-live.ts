import { useEffect, useRef, useState } from "react";
import { useFetcher, useRevalidator } from "react-router";
import type { ConversationListRow, ConversationRow, InboxLiveEvent, PresenceMember, ThreadItem } from "~/lib/inbox";
import { matchesPlace, type ListPlaceView } from "./conversation-list";

const byActivity = (a: ConversationListRow, b: ConversationListRow) =>
  b.lastMessageAt.localeCompare(a.lastMessageAt) || b.id.localeCompare(a.id);
const byTime = (a: ThreadItem, b: ThreadItem) => a.at.localeCompare(b.at) || (a.type === b.type ? 0 : a.type === "message" ? -1 : 1);

/**
 * The inbox kept current by its event stream (/chat/events): list rows replaced or added, the open
 * thread's messages and notes added or updated (ticks), the open conversation's header, and who of
 * the team is on it. The server-rendered data is the start; a navigation starts again from the new
 * page's data. A browser that was away too long (a `reset`) reloads the data. The inputs must keep
 * their identity between renders (loader data does): a new array each render would start over each
 * render, for ever.
 */
export function useInboxLive(options: {
  eventId: number;
  place: ListPlaceView;
  viewerId: string;
  rows: ConversationListRow[];
  conversation: ConversationRow | null;
  items: ThreadItem[];
  /** Whether this member marks messages read by looking (those who answer). */
  marksRead: boolean;
}) {
  const { eventId, place, viewerId, marksRead } = options;
  const [rows, setRows] = useState(options.rows);
  const [conversation, setConversation] = useState(options.conversation);
  const [items, setItems] = useState(options.items);
  const [presence, setPresence] = useState<PresenceMember[]>([]);
  const [live, setLive] = useState(false);
  const revalidator = useRevalidator();
  const reader = useFetcher();
  const conversationId = options.conversation?.id ?? null;
  const placeRef = useRef(place);
  useEffect(() => {
    placeRef.current = place;
  }, [place]);

  useEffect(() => setRows(options.rows), [options.rows]);
  useEffect(() => setConversation(options.conversation), [options.conversation]);
  useEffect(() => setItems(options.items), [options.items]);

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const url = `/chat/events?after=${eventId}${conversationId ? `&conversation=${conversationId}` : ""}`;
    const source = new EventSource(url);
    const onInbox = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as InboxLiveEvent;
      const row = event.conversation;
      if (row) {
        setRows((current) => {
          const at = current.findIndex((r) => r.id === row.id);
          if (at >= 0) return current.map((r) => (r.id === row.id ? row : r)).sort(byActivity);
          return matchesPlace(row, placeRef.current, viewerId) ? [row, ...current].sort(byActivity) : current;
        });
        if (row.id === conversationId) {
          setConversation(row);
          // Looking at it: what arrives is read (the server marks it at Meta).
          if (marksRead && row.unread > 0 && document.visibilityState === "visible")
            reader.submit({ intent: "read" }, { method: "post", action: `/chat/${row.id}` });
        }
      }
      const item = event.item;
      if (item && event.conversationId === conversationId)
        setItems((current) => {
          const at = current.findIndex((i) => i.id === item.id && i.type === item.type);
          return (at >= 0 ? current.map((i, n) => (n === at ? item : i)) : [...current, item]).sort(byTime);
        });
    };
    const onPresence = (message: MessageEvent<string>) => {
      const { conversationId: id, members } = JSON.parse(message.data) as { conversationId: string; members: PresenceMember[] };
      if (id === conversationId) setPresence(members.filter((m) => m.id !== viewerId));
    };
    const onReset = () => void revalidator.revalidate();
    source.addEventListener("inbox", onInbox);
    source.addEventListener("presence", onPresence);
    source.addEventListener("reset", onReset);
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    return () => source.close();
    // The stream is per page: its data's position and its conversation.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [eventId, conversationId, viewerId]);

  return { rows, conversation, items, presence, live };
}
