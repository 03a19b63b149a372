import type { ReactNode } from "react";
import type { ConversationListRow } from "~/lib/inbox";
import { Link } from "~/components/ui/link";
import { useCan } from "~/components/layout/shell-role";
import { buttonClass } from "~/components/ui/button";
import { Plus } from "~/components/ui/icons";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";
import { ConversationList, placeHref, type ListPlaceView } from "./conversation-list";

/** As wide as the inbox shows the list beside the thread (Tailwind's `md`). */
const SIDE_BY_SIDE = "(min-width: 48rem)";

const NO_NUMBERS: { id: string; label: string }[] = [];

/**
 * The inbox's two panes: the list and a conversation side by side on a wide screen; on a phone one
 * at a time (the list on /chat, the thread with its back link on /chat/<id>). Both pages are
 * documents (decision 069): `events` is the inbox's stream, whose events read the page again
 * (app/assets/live.js) and put its regions in place; `match` (a conversation's id) keeps the page's
 * own reads to the events about it. A conversation's page has no rows: on a wide screen the script
 * reads the list from /chat (`data-live-from`); without scripts, and on a phone, it links to it.
 */
export function InboxScreen({
  rows,
  place,
  numbers = NO_NUMBERS,
  next,
  now,
  activeId,
  reloadHref,
  events,
  match,
  children,
}: {
  rows: ConversationListRow[] | null;
  place: ListPlaceView;
  /** The list's number filter; a conversation's page (no list) has none. */
  numbers?: { id: string; label: string }[];
  next: string | null;
  now: string;
  activeId: string | null;
  reloadHref: string;
  events: string;
  match?: string;
  children: ReactNode;
}) {
  const canReply = useCan("inbox:reply");
  return (
    <div className="-m-4 flex h-[calc(100dvh-4rem)] overflow-hidden border-slate-200 bg-white sm:-m-6 md:m-0 md:h-[calc(100dvh-7rem)] md:rounded-xl md:border">
      <h1 className="sr-only">{m.inbox_chat_title()}</h1>
      <div hidden data-live-events={events} data-live-on="inbox presence reset" data-live-match={match} data-live-distinct="" />
      <section
        aria-label={m.inbox_conversations()}
        className={`${activeId ? "hidden md:flex" : "flex"} w-full min-w-0 flex-col border-slate-200 md:w-80 md:shrink-0 md:border-r lg:w-96`}
      >
        {canReply ? (
          <div className="border-b border-slate-200 px-3 pt-3 pb-2">
            <Link to="/chat/new" className={buttonClass("primary", "sm", "w-full justify-center")}>
              <Plus size={16} aria-hidden /> {m.inbox_new_conversation()}
            </Link>
          </div>
        ) : null}
        {rows ? (
          <div id="inbox-list" data-live-region="" className="flex min-h-0 flex-1 flex-col">
            <ConversationList
              rows={rows}
              place={place}
              numbers={numbers}
              activeId={activeId}
              next={next}
              now={now}
              reloadHref={reloadHref}
            />
          </div>
        ) : (
          <div
            id="inbox-list"
            data-live-from={placeHref("/chat", place)}
            data-live-media={SIDE_BY_SIDE}
            className="flex min-h-0 flex-1 flex-col"
          >
            <p className="flex-1 px-3 py-4 text-sm text-slate-600">
              <TextLink to={placeHref("/chat", place)}>{m.inbox_all_conversations()}</TextLink>
            </p>
          </div>
        )}
        <p
          className="border-t border-slate-200 px-3 py-1 text-[11px] text-slate-500"
          aria-live="polite"
          data-live-status=""
          data-live-text={m.inbox_live_on()}
        >
          {m.inbox_live_off()}
        </p>
      </section>
      <section
        aria-label={m.inbox_conversation()}
        className={`${activeId ? "flex" : "hidden md:flex"} min-w-0 flex-1 flex-col bg-slate-50`}
      >
        {children}
      </section>
    </div>
  );
}
