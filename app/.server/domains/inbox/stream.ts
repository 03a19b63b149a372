import type { InboxLiveEvent } from "~/lib/inbox";
import { db } from "../../infrastructure/db/client";
import { isUuid } from "../../infrastructure/db/keyset";
import { log } from "../../infrastructure/log";
import { eventsKeptSince, eventsSince, latestEventId } from "../messaging";
import { buildLiveEvents, presenceOf, setPresence, subscribeInbox } from "./live";
import { rawQuery } from "../../infrastructure/db/client";
import type { Send } from "../../infrastructure/http/live-streams";

/** A comment-like event now and then, so proxies (nginx's 60 s read timeout) keep an idle stream open; presence is refreshed with it. */
export const KEEPALIVE_MS = 25_000;

/**
 * One member's inbox stream: replays the change log after `after` (the page's or Last-Event-ID),
 * then forwards the hub's changes, skipping any already sent; marks the member as viewing the
 * conversation while it is open. `start` is the live stream's init: it answers the cleanup.
 */
export async function openInboxStream(options: {
  organizationId: string;
  userId: string;
  conversationId: string | null;
  after: number | null;
}) {
  const { organizationId, userId } = options;
  let conversationId: string | null = null;
  if (options.conversationId && isUuid(options.conversationId)) {
    const [own] = await rawQuery<{ id: string }>(`select id from conversations where id = $1 and organization_id = $2`, [
      options.conversationId,
      organizationId,
    ]);
    conversationId = own?.id ?? null;
  }
  const after = options.after ?? (await latestEventId(db(), organizationId));
  const kept = await eventsKeptSince(db(), organizationId, after);
  const latest = kept ? after : await latestEventId(db(), organizationId);
  return {
    start(send: Send) {
      let stopped = false;
      let ready = false;
      const buffered: InboxLiveEvent[] = [];
      const sent = new Map<number, number>();
      let unsubscribe: (() => Promise<void>) | undefined;
      const deliver = (event: InboxLiveEvent) => {
        if (sent.has(event.id)) return;
        const now = Date.now();
        sent.set(event.id, now);
        if (sent.size > 2000) for (const [id, at] of sent) if (now - at > 30_000) sent.delete(id);
        send({ event: "inbox", data: JSON.stringify(event), id: String(Math.max(event.id, lastId)) });
        lastId = Math.max(lastId, event.id);
      };
      let lastId = latest;
      const replay = async (from: number) => {
        for (let cursor = from; ;) {
          const logged = await eventsSince(db(), organizationId, cursor);
          const fresh = logged.filter((e) => !sent.has(e.id));
          for (const event of await buildLiveEvents(organizationId, fresh))
            deliver(conversationId === event.conversationId || !event.item ? event : { ...event, item: null });
          if (logged.length < 500) return;
          cursor = logged.at(-1)!.id;
        }
      };
      const sendPresence = async () => {
        if (!conversationId) return;
        send({ event: "presence", data: JSON.stringify({ conversationId, members: await presenceOf(conversationId) }) });
      };
      const keepalive = setInterval(() => {
        send({ event: "ping", data: "" });
        if (conversationId && !stopped)
          void setPresence(organizationId, conversationId, userId, "viewing").catch((error) =>
            log().warn({ err: error }, "inbox stream: refreshing presence failed"),
          );
      }, KEEPALIVE_MS);
      if (!kept) send({ event: "reset", data: "" });
      void subscribeInbox(
        {
          organizationId,
          conversationId,
          send: (event) => (ready ? deliver(event) : void buffered.push(event)),
          presence: (id, members) => send({ event: "presence", data: JSON.stringify({ conversationId: id, members }) }),
          resync: () => void replay(lastId).catch((error) => log().warn({ err: error }, "inbox stream: resync failed")),
        },
        after,
      )
        .then(async (unlisten) => {
          if (stopped) return void unlisten();
          unsubscribe = unlisten;
          await replay(after);
          ready = true;
          for (const event of buffered.splice(0)) deliver(event);
          if (conversationId) await setPresence(organizationId, conversationId, userId, "viewing");
          await sendPresence();
        })
        .catch((error) => log().warn({ err: error }, "inbox stream: starting failed"));
      return () => {
        stopped = true;
        clearInterval(keepalive);
        void unsubscribe?.();
        if (conversationId)
          void setPresence(organizationId, conversationId, userId, "gone").catch((error) =>
            log().warn({ err: error }, "inbox stream: clearing presence failed"),
          );
      };
    },
  };
}
