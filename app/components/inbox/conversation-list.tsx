import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import type { ConversationListRow, InboxFilter } from "~/lib/inbox";
import { formatTime, formatDay, dayKey } from "~/lib/dates";
import { Check, CheckCheck, Clock, RefreshCw, Search, XCircle } from "~/components/ui/icons";
import { windowWords } from "./window-words";
import { TextLink } from "~/components/ui/text-link";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/** The list's filters and their words (read when drawn: the request's language). */
const filters = (): [InboxFilter, string][] => [
  ["all", m.inbox_filter_all()],
  ["open", m.inbox_filter_open()],
  ["mine", m.inbox_filter_mine()],
  ["unassigned", m.inbox_filter_unassigned()],
  ["resolved", m.inbox_filter_resolved()],
];

export interface ListPlaceView {
  q: string;
  filter: InboxFilter;
  number: string;
  after: string;
}

/** A query string keeping the list's place, with changes. */
export function placeHref(path: string, place: ListPlaceView, change: Partial<ListPlaceView> = {}) {
  const next = { ...place, after: "", ...change };
  const params = new URLSearchParams();
  if (next.q) params.set("q", next.q);
  if (next.filter !== "all") params.set("filter", next.filter);
  if (next.number) params.set("number", next.number);
  if (next.after) params.set("after", next.after);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function Tick({ status }: { status: string }) {
  if (status === "read") return <CheckCheck size={14} className="shrink-0 text-sky-600" aria-label={m.inbox_tick_read()} />;
  if (status === "delivered") return <CheckCheck size={14} className="shrink-0 text-slate-500" aria-label={m.inbox_tick_delivered()} />;
  if (status === "sent") return <Check size={14} className="shrink-0 text-slate-500" aria-label={m.inbox_tick_sent()} />;
  if (status === "failed") return <XCircle size={14} className="shrink-0 text-red-600" aria-label={m.inbox_tick_failed()} />;
  if (status === "queued") return <Clock size={14} className="shrink-0 text-slate-500" aria-label={m.inbox_tick_sending()} />;
  return null;
}

function when(at: string, now: string) {
  return dayKey(at) === dayKey(now) ? formatTime(at) : formatDay(at);
}

/** The inbox's left side: search, filters and the conversations, newest activity first. */
export function ConversationList({
  rows,
  place,
  numbers,
  activeId,
  next,
  now,
  reloadHref,
}: {
  rows: ConversationListRow[];
  place: ListPlaceView;
  numbers: { id: string; label: string }[];
  activeId: string | null;
  next: string | null;
  now: string;
  reloadHref: string;
}) {
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <Form method="get" action="/chat" role="search" discover="none" className="space-y-2 border-b border-slate-200 p-3">
        <div className="flex gap-2">
          <label className="sr-only" htmlFor="inbox-search">
            {m.inbox_list_search_label()}
          </label>
          <input
            id="inbox-search"
            type="search"
            name="q"
            defaultValue={place.q}
            maxLength={100}
            placeholder={m.inbox_list_search_placeholder()}
            className="min-w-0 flex-1 rounded-lg border border-slate-300 px-3 py-2 text-sm"
          />
          {place.filter !== "all" ? <input type="hidden" name="filter" value={place.filter} /> : null}
          <button
            type="submit"
            className="rounded-lg border border-slate-300 px-3 text-slate-700 hover:bg-slate-50"
            aria-label={m.inbox_search()}
          >
            <Search size={16} />
          </button>
        </div>
        {/* The number filter on a row of its own: a number's label is long, and beside the search box it squeezed it. */}
        {numbers.length > 1 ? (
          <div>
            <label className="sr-only" htmlFor="inbox-number">
              {m.inbox_list_number_label()}
            </label>
            <select
              id="inbox-number"
              name="number"
              defaultValue={place.number}
              className="block w-full rounded-lg border border-slate-300 px-2 py-1.5 text-sm"
            >
              <option value="">{m.inbox_list_all_numbers()}</option>
              {numbers.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <nav aria-label={m.inbox_list_filter_label()} className="flex flex-wrap gap-1 text-xs">
          {filters().map(([value, label]) => (
            <Link
              key={value}
              to={placeHref("/chat", place, { filter: value })}
              // The list's own route, known already: nothing to discover (and 21 bytes a link less).
              discover="none"
              aria-current={place.filter === value ? "page" : undefined}
              className="chip"
            >
              {label}
            </Link>
          ))}
        </nav>
      </Form>
      <div className="flex items-center justify-between px-3 py-1.5 text-xs text-slate-600">
        <span>{place.q ? m.inbox_list_results({ q: place.q }) : m.inbox_conversations()}</span>
        <Link
          to={reloadHref}
          className="inline-flex items-center gap-1 font-medium text-brand-700 hover:underline"
          reloadDocument
          discover="none"
        >
          <RefreshCw size={12} /> {m.inbox_list_check()}
        </Link>
      </div>
      {rows.length ? (
        <ul
          className="min-h-0 flex-1 divide-y divide-slate-100 overflow-y-auto"
          aria-label={m.inbox_conversations()}
          data-testid="conversation-list"
        >
          {rows.map((row) => (
            <li key={row.id}>
              <Link
                to={placeHref(`/chat/${row.id}`, place)}
                aria-current={row.id === activeId ? "page" : undefined}
                data-conversation={row.id}
                data-unread={row.unread ? "" : undefined}
                className="convo"
              >
                <span aria-hidden="true" className="convo-avatar">
                  {row.name.replace(/^\+/, "").slice(0, 1).toUpperCase()}
                </span>
                <span className="min-w-0 flex-1">
                  <span className="convo-top">
                    <span className="convo-name">{row.name}</span>
                    <span className="convo-when">{when(row.lastMessageAt, now)}</span>
                  </span>
                  <span className="convo-last">
                    {row.lastMessage?.direction === "outbound" ? <Tick status={row.lastMessage.status} /> : null}
                    <span className="truncate">{row.lastMessage?.text || m.inbox_list_no_messages()}</span>
                    {row.unread ? (
                      <span
                        className="convo-count"
                        aria-label={byCount(
                          row.unread,
                          () => m.inbox_list_unread_one({ count: row.unread }),
                          () => m.inbox_list_unread_other({ count: row.unread }),
                        )}
                      >
                        {row.unread > 99 ? "99+" : row.unread}
                      </span>
                    ) : null}
                  </span>
                  <span className="convo-meta">
                    <span className={row.window.open ? "convo-open" : undefined}>{windowWords(row.window, now, true)}</span>
                    {row.status === "resolved" ? <span>{m.inbox_status_resolved()}</span> : null}
                    {row.assignee ? <span>· {row.assignee.name}</span> : null}
                  </span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <p className="flex-1 p-4 text-sm text-slate-600">
          {place.q ? m.inbox_list_no_match() : place.filter !== "all" ? m.inbox_list_none_here() : m.inbox_list_none_yet()}
        </p>
      )}
      {next || place.after ? (
        <div className="flex justify-between border-t border-slate-200 px-3 py-2 text-xs">
          {place.after ? (
            <TextLink to={placeHref("/chat", place)} weight="medium" underline="hover">
              {m.inbox_list_newest()}
            </TextLink>
          ) : (
            <span />
          )}
          {next ? (
            <TextLink to={placeHref("/chat", place, { after: next })} weight="medium" underline="hover">
              {m.inbox_list_older()}
            </TextLink>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
