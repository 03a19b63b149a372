import type { InboxLiveEvent, PresenceMember, ThreadItem } from "~/lib/inbox";
import { db, listenChannel, rawQuery } from "../../infrastructure/db/client";
import { log } from "../../infrastructure/log";
import { processState } from "../../infrastructure/process-state";
import { eventsSince, INBOX_CHANNEL, type LoggedEvent } from "../messaging";
import { conversationRows } from "./list";
import { memberOf } from "./members";
import { threadEntriesByIds, threadMessagesByIds } from "./thread";

/** pg_notify channel of presence changes; the payload is `<organisation id>|<conversation id>`. */
export const PRESENCE_CHANNEL = "jumbe_inbox_presence";
/** A viewer whose stream stopped refreshing for this long is gone; a typist who stopped typing this long is viewing. */
const VIEWING_TTL_SECONDS = 60;
const TYPING_TTL_SECONDS = 8;

/** An open event stream of a member, as the hub feeds it. */
export interface InboxSubscriber {
  organizationId: string;
  /** The conversation whose thread the page shows (its messages and presence come too), or null. */
  conversationId: string | null;
  send: (event: InboxLiveEvent) => void;
  presence: (conversationId: string, members: PresenceMember[]) => void;
  /** The LISTEN connection was lost and is back: what happened meanwhile must be read again. */
  resync: () => void;
}

interface OrgHub {
  subscribers: Set<InboxSubscriber>;
  /** Every event id at or below this was read (ids follow commit order within an organisation). */
  floor: number;
  reading: boolean;
  again: boolean;
  unlisten?: Promise<() => Promise<void>>;
}

const hubs = processState("inbox-live", () => new Map<string, OrgHub>());

/**
 * The events as a browser gets them: each with the conversation's list row as it is now and, for
 * a message or an entry, the thread item, read in three statements whatever the number of events.
 */
export async function buildLiveEvents(organizationId: string, events: readonly LoggedEvent[]): Promise<InboxLiveEvent[]> {
  if (!events.length) return [];
  const [rows, messages, entries] = await Promise.all([
    conversationRows(organizationId, [...new Set(events.map((e) => e.conversationId))]),
    threadMessagesByIds(organizationId, [...new Set(events.flatMap((e) => (e.messageId ? [e.messageId] : [])))]),
    threadEntriesByIds(organizationId, [...new Set(events.flatMap((e) => (e.entryId ? [e.entryId] : [])))]),
  ]);
  const rowOf = new Map(rows.map((r) => [r.id, r]));
  const messageOf = new Map(messages.map((m) => [m.id, m]));
  // A reaction's event brings the message it reacts to.
  const reactions = events.filter((e) => e.messageId && !messageOf.has(e.messageId)).map((e) => e.messageId!);
  if (reactions.length)
    for (const r of await rawQuery<{ id: string; target: string }>(
      `select r.id, t.message_id as target from messages r join message_wamids t on t.organization_id = r.organization_id and t.wamid = r.payload->'reaction'->>'message_id'
       where r.organization_id = $1 and r.id = any($2::uuid[])`,
      [organizationId, reactions],
    )) {
      const target = messageOf.get(r.target);
      if (target) messageOf.set(r.id, target);
    }
  const entryOf = new Map(entries.map((e) => [e.id, e]));
  return events.flatMap((event): InboxLiveEvent[] => {
    const conversation = rowOf.get(event.conversationId) ?? null;
    if (!conversation) return [];
    let item: ThreadItem | null = null;
    if (event.messageId) item = messageOf.get(event.messageId) ?? null;
    if (event.entryId) item = entryOf.get(event.entryId) ?? null;
    return [{ id: event.id, kind: event.kind, conversationId: event.conversationId, conversation, item }];
  });
}

/** Sends each subscriber its share: every list row; a thread item only to the stream of that conversation. */
function fanOut(hub: OrgHub, events: InboxLiveEvent[]) {
  for (const subscriber of hub.subscribers)
    for (const event of events)
      subscriber.send(subscriber.conversationId === event.conversationId || !event.item ? event : { ...event, item: null });
}

async function readNew(organizationId: string, hub: OrgHub) {
  if (hub.reading) {
    hub.again = true;
    return;
  }
  hub.reading = true;
  try {
    do {
      hub.again = false;
      const logged = await eventsSince(db(), organizationId, hub.floor);
      if (logged.length) {
        hub.floor = logged.at(-1)!.id;
        fanOut(hub, await buildLiveEvents(organizationId, logged));
      }
      if (logged.length >= 500) hub.again = true;
    } while (hub.again && hub.subscribers.size);
  } catch (error) {
    log().warn({ err: error, organizationId }, "inbox live: reading the change log failed");
  } finally {
    hub.reading = false;
  }
}

/**
 * Adds a stream to its organisation's hub: one LISTEN subscription and one read of the change log
 * per organisation and process, whatever the number of streams (decision 034). Answers the
 * unsubscribe.
 */
export async function subscribeInbox(subscriber: InboxSubscriber, startAfter: number) {
  let hub = hubs.get(subscriber.organizationId);
  if (!hub) {
    const created: OrgHub = { subscribers: new Set(), floor: startAfter, reading: false, again: false };
    hub = created;
    hubs.set(subscriber.organizationId, created);
    created.unlisten = listenChannel(INBOX_CHANNEL, {
      onMessage: (payload) => {
        if (payload === subscriber.organizationId) void readNew(subscriber.organizationId, created);
      },
      onResync: () => {
        for (const s of created.subscribers) s.resync();
      },
    });
  }
  hub.subscribers.add(subscriber);
  await watchPresence();
  const current = hub;
  return async () => {
    current.subscribers.delete(subscriber);
    if (current.subscribers.size || hubs.get(subscriber.organizationId) !== current) return;
    hubs.delete(subscriber.organizationId);
    await (
      await current.unlisten
    )?.();
  };
}

// ---------------------------------------------------------------------------------------------
// Presence: who of the team is viewing or typing in a conversation

const presence = processState("inbox-presence", () => ({ listening: undefined as Promise<unknown> | undefined }));

function watchPresence() {
  presence.listening ??= listenChannel(PRESENCE_CHANNEL, {
    onMessage: (payload) => {
      const [organizationId, conversationId] = payload.split("|");
      const hub = organizationId ? hubs.get(organizationId) : undefined;
      if (!hub || !conversationId) return;
      const watching = [...hub.subscribers].filter((s) => s.conversationId === conversationId);
      if (!watching.length) return;
      void presenceOf(conversationId)
        .then((members) => {
          for (const s of watching) s.presence(conversationId, members);
        })
        .catch((error) => log().warn({ err: error }, "inbox live: reading presence failed"));
    },
  }).catch((error) => {
    presence.listening = undefined;
    log().warn({ err: error }, "inbox live: LISTEN for presence failed");
  });
  return presence.listening;
}

/** The members on a conversation now: viewing (their stream is open) or typing (in the last few seconds). */
export async function presenceOf(conversationId: string): Promise<PresenceMember[]> {
  const rows = await rawQuery(
    `select u.id as member_id, u.first_name as member_first, u.last_name as member_last,
            p.state = 'typing' and p.updated_at > now() - make_interval(secs => ${TYPING_TTL_SECONDS}) as typing
     from inbox_presence p join users u on u.id = p.user_id
     where p.conversation_id = $1 and p.updated_at > now() - make_interval(secs => ${VIEWING_TTL_SECONDS})
     order by u.first_name, u.id`,
    [conversationId],
  );
  return rows.flatMap((row) => {
    const member = memberOf(row, "member");
    return member ? [{ ...member, state: row.typing ? ("typing" as const) : ("viewing" as const) }] : [];
  });
}

/** Records that a member views or types in a conversation (or left it) and tells every instance. */
export async function setPresence(organizationId: string, conversationId: string, userId: string, state: "viewing" | "typing" | "gone") {
  await rawQuery(
    state === "gone"
      ? `with gone as (delete from inbox_presence where conversation_id = $1 and user_id = $2 returning 1)
         select pg_notify('${PRESENCE_CHANNEL}', $3)`
      : `with upsert as (
           insert into inbox_presence (conversation_id, user_id, state, updated_at) values ($1, $2, $4, now())
           on conflict (conversation_id, user_id) do update set state = excluded.state, updated_at = now() returning 1)
         select pg_notify('${PRESENCE_CHANNEL}', $3)`,
    state === "gone"
      ? [conversationId, userId, `${organizationId}|${conversationId}`]
      : [conversationId, userId, `${organizationId}|${conversationId}`, state],
  );
}
