import { Form, Link } from "react-router";
import type { ThreadEntry, ThreadItem, ThreadMessage } from "~/lib/inbox";
import { dayKey, formatDay, formatTime } from "~/lib/dates";
import { Check, CheckCheck, Clock, RefreshCw, Reply, XCircle } from "~/components/ui/icons";
import { MessageBody } from "./message-body";

const SOURCE_WORDS: Record<string, string> = {
  campaign: "Campaign",
  broadcast: "Broadcast",
  api: "Sent by the API",
  system: "Sent by Jumbe",
};

function Ticks({ message }: { message: ThreadMessage }) {
  switch (message.status) {
    case "read":
      return <CheckCheck size={14} className="text-sky-600" aria-label="Read" />;
    case "delivered":
      return <CheckCheck size={14} className="text-slate-500" aria-label="Delivered" />;
    case "sent":
      return <Check size={14} className="text-slate-500" aria-label="Sent" />;
    case "failed":
      return <XCircle size={14} className="text-red-600" aria-label="Failed" />;
    case "queued":
      return <Clock size={14} className="text-slate-500" aria-label="Sending" />;
    default:
      return null;
  }
}

function MessageBubble({ message, canReply, replyHref }: { message: ThreadMessage; canReply: boolean; replyHref: string }) {
  const outbound = message.direction === "outbound";
  return (
    <li className="msg" data-outbound={outbound ? "" : undefined} data-message={message.id} data-status={message.status}>
      <div className="msg-bubble">
        {message.sentBy || message.source ? (
          <p className="msg-sender">{message.sentBy?.name ?? SOURCE_WORDS[message.source ?? ""] ?? message.source}</p>
        ) : null}
        {message.replyTo ? (
          <p className="mb-1 truncate border-l-2 border-brand-600 bg-slate-50 px-2 py-1 text-xs text-slate-600">
            <span className="sr-only">In reply to: </span>
            {message.replyTo.text}
          </p>
        ) : null}
        <MessageBody content={message.content} />
        <p className="msg-time">
          <time dateTime={message.at}>{formatTime(message.at)}</time>
          {outbound ? <Ticks message={message} /> : null}
        </p>
        {message.reactions.length ? (
          <p className="-mb-1 mt-0.5 text-right text-base" aria-label={`Reactions: ${message.reactions.map((r) => r.emoji).join(" ")}`}>
            {message.reactions.map((r) => (
              <span key={r.from} title={r.from === "customer" ? "The customer reacted" : "You reacted"}>
                {r.emoji}
              </span>
            ))}
          </p>
        ) : null}
        {message.failure ? (
          <div className="mt-1 border-t border-red-100 pt-1 text-xs text-red-700">
            <p>Not delivered: {message.failure}</p>
            {canReply && message.retryable ? (
              <Form method="post" className="mt-1">
                <input type="hidden" name="message" value={message.id} />
                <button
                  type="submit"
                  name="intent"
                  value="retry"
                  className="inline-flex items-center gap-1 font-semibold text-red-800 hover:underline"
                >
                  <RefreshCw size={12} /> Send again
                </button>
              </Form>
            ) : null}
          </div>
        ) : null}
        {canReply && !outbound ? (
          <Link to={replyHref} className="msg-reply" aria-label="Reply to this message">
            <Reply size={12} /> Reply
          </Link>
        ) : null}
      </div>
    </li>
  );
}

const ENTRY_WORDS: Record<ThreadEntry["kind"], (e: ThreadEntry) => string> = {
  note: (e) => `Note by ${e.actor?.name ?? "a member"}`,
  assigned: (e) =>
    e.actor && e.subject && e.actor.id === e.subject.id
      ? `${e.actor.name} took this conversation`
      : `${e.actor?.name ?? "Jumbe"} assigned this conversation to ${e.subject?.name ?? "a member"}`,
  unassigned: (e) => `${e.actor?.name ?? "Jumbe"} unassigned this conversation${e.subject ? ` from ${e.subject.name}` : ""}`,
  resolved: (e) => `${e.actor?.name ?? "Jumbe"} resolved this conversation`,
  reopened: (e) => (e.actor ? `${e.actor.name} reopened this conversation` : "The customer wrote again: reopened"),
};

function EntryLine({ entry }: { entry: ThreadEntry }) {
  if (entry.kind === "note")
    return (
      <li className="mx-auto w-full max-w-md rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm" data-entry={entry.id}>
        <p className="text-[11px] font-semibold text-amber-900">
          {ENTRY_WORDS.note(entry)} · <time dateTime={entry.at}>{formatTime(entry.at)}</time> · never sent to the customer
        </p>
        <p className="whitespace-pre-wrap break-words text-slate-800">{entry.body}</p>
      </li>
    );
  return (
    <li className="text-center text-xs text-slate-500" data-entry={entry.id}>
      {ENTRY_WORDS[entry.kind](entry)} · <time dateTime={entry.at}>{formatTime(entry.at)}</time>
    </li>
  );
}

/** A conversation's messages and the team's actions, with a line for each day (in the organisation's time zone). */
export function ThreadView({
  items,
  olderHref,
  canReply,
  replyHref,
}: {
  items: ThreadItem[];
  olderHref: string | null;
  canReply: boolean;
  replyHref: (messageId: string) => string;
}) {
  // Each item with whether a day begins at it (the first, or another day than the item before).
  const days = items.map((item, i) => dayKey(item.at) !== (i ? dayKey(items[i - 1]!.at) : ""));
  return (
    <ol className="space-y-2" aria-label="Messages" data-testid="thread">
      {olderHref ? (
        <li className="text-center">
          <Link to={olderHref} className="text-xs font-medium text-brand-700 hover:underline" preventScrollReset>
            Load older messages
          </Link>
        </li>
      ) : null}
      {items.flatMap((item, i) => {
        const key = dayKey(item.at);
        const separator = days[i] ? (
          <li key={`day-${key}`} className="py-1 text-center">
            <span className="rounded-full bg-slate-200 px-2.5 py-0.5 text-[11px] font-medium text-slate-700">{formatDay(item.at)}</span>
          </li>
        ) : null;
        const line =
          item.type === "message" ? (
            <MessageBubble key={item.id} message={item} canReply={canReply} replyHref={replyHref(item.id)} />
          ) : (
            <EntryLine key={item.id} entry={item} />
          );
        return separator ? [separator, line] : [line];
      })}
      {!items.length ? <li className="py-8 text-center text-sm text-slate-600">No messages in this conversation yet.</li> : null}
    </ol>
  );
}
