import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import type { HandoverReason, ThreadEntry, ThreadItem, ThreadMessage } from "~/lib/inbox";
import { dayKey, formatDay, formatTime } from "~/lib/dates";
import { Check, CheckCheck, Clock, RefreshCw, Reply, XCircle } from "~/components/ui/icons";
import { m } from "~/paraglide/messages";
import { MessageBody } from "./message-body";

/** Who sent a message that no member wrote, in words; another source as it is. */
function sourceWords(source: string, automation: ThreadMessage["automation"] = null) {
  if (automation?.kind === "welcome") return m.inbox_source_automation_welcome();
  if (automation?.kind === "away") return m.inbox_source_automation_away();
  if (automation?.kind === "flow") return m.inbox_source_automation_flow();
  if (automation?.kind === "assistant") return m.inbox_source_automation_assistant();
  if (automation?.rule) return m.inbox_source_automation_rule({ rule: automation.rule });
  switch (source) {
    case "automation":
      return m.inbox_source_automation();
    case "campaign":
      return m.inbox_source_campaign();
    case "broadcast":
      return m.inbox_source_broadcast();
    case "api":
      return m.inbox_source_api();
    case "system":
      return m.inbox_source_system();
    default:
      return source;
  }
}

function Ticks({ message }: { message: ThreadMessage }) {
  switch (message.status) {
    case "read":
      return <CheckCheck size={14} className="text-sky-600" aria-label={m.inbox_tick_read()} />;
    case "delivered":
      return <CheckCheck size={14} className="text-slate-500" aria-label={m.inbox_tick_delivered()} />;
    case "sent":
      return <Check size={14} className="text-slate-500" aria-label={m.inbox_tick_sent()} />;
    case "failed":
      return <XCircle size={14} className="text-red-600" aria-label={m.inbox_tick_failed()} />;
    case "queued":
      return <Clock size={14} className="text-slate-500" aria-label={m.inbox_tick_sending()} />;
    default:
      return null;
  }
}

function MessageBubble({ message, canReply, replyHref }: { message: ThreadMessage; canReply: boolean; replyHref: string }) {
  const outbound = message.direction === "outbound";
  return (
    <li
      className="msg"
      data-outbound={outbound ? "" : undefined}
      data-message={message.id}
      data-status={message.status}
      data-channel={message.channel}
    >
      <div className="msg-bubble">
        {message.sentBy || message.source ? (
          <p className="msg-sender">{message.sentBy?.name ?? sourceWords(message.source ?? "", message.automation)}</p>
        ) : null}
        {message.replyTo ? (
          <p className="mb-1 truncate border-l-2 border-brand-600 bg-slate-50 px-2 py-1 text-xs text-slate-600">
            <span className="sr-only">{`${m.inbox_thread_in_reply_to()} `}</span>
            {message.replyTo.text}
          </p>
        ) : null}
        <MessageBody content={message.content} />
        <p className="msg-time">
          {message.channel === "sms" ? <span className="msg-channel mr-1 font-medium">{m.sms_channel_label()}</span> : null}
          <time dateTime={message.at}>{formatTime(message.at)}</time>
          {outbound ? <Ticks message={message} /> : null}
        </p>
        {message.reactions.length ? (
          <p
            className="-mb-1 mt-0.5 text-right text-base"
            aria-label={m.inbox_thread_reactions({ emojis: message.reactions.map((r) => r.emoji).join(" ") })}
          >
            {message.reactions.map((r) => (
              <span key={r.from} title={r.from === "customer" ? m.inbox_thread_customer_reacted() : m.inbox_thread_you_reacted()}>
                {r.emoji}
              </span>
            ))}
          </p>
        ) : null}
        {message.failure ? (
          <div className="mt-1 border-t border-red-100 pt-1 text-xs text-red-700">
            <p>{m.inbox_thread_not_delivered({ reason: message.failure })}</p>
            {canReply && message.retryable ? (
              <Form method="post" className="mt-1">
                <input type="hidden" name="message" value={message.id} />
                <button
                  type="submit"
                  name="intent"
                  value="retry"
                  className="inline-flex items-center gap-1 font-semibold text-red-800 hover:underline"
                >
                  <RefreshCw size={12} /> {m.inbox_thread_send_again()}
                </button>
              </Form>
            ) : null}
          </div>
        ) : null}
        {canReply && !outbound ? (
          <Link to={replyHref} className="msg-reply" aria-label={m.inbox_thread_reply_label()}>
            <Reply size={12} /> {m.inbox_reply()}
          </Link>
        ) : null}
      </div>
    </li>
  );
}

/** A line of the team's actions in words (read when drawn: the request's language). */
const ENTRY_WORDS: Record<ThreadEntry["kind"], (e: ThreadEntry) => string> = {
  note: (e) => m.inbox_entry_note_by({ name: e.actor?.name ?? m.inbox_entry_a_member() }),
  assigned: (e) =>
    e.actor && e.subject && e.actor.id === e.subject.id
      ? m.inbox_entry_took({ name: e.actor.name })
      : m.inbox_entry_assigned({ actor: e.actor?.name ?? "Jumbe", subject: e.subject?.name ?? m.inbox_entry_a_member() }),
  unassigned: (e) =>
    e.subject
      ? m.inbox_entry_unassigned_from({ actor: e.actor?.name ?? "Jumbe", subject: e.subject.name })
      : m.inbox_entry_unassigned({ actor: e.actor?.name ?? "Jumbe" }),
  resolved: (e) => m.inbox_entry_resolved({ actor: e.actor?.name ?? "Jumbe" }),
  reopened: (e) => (e.actor ? m.inbox_entry_reopened({ actor: e.actor.name }) : m.inbox_entry_customer_reopened()),
  handover: (e) => {
    const reason = HANDOVER_WORDS[e.reason ?? "rule"]() + (e.body ? ` (${e.body})` : "");
    return e.subject ? m.inbox_entry_handover_to({ subject: e.subject.name, reason }) : m.inbox_entry_handover_waiting({ reason });
  },
};

/** Why an automation handed the conversation to a person, in words. */
const HANDOVER_WORDS: Record<HandoverReason, () => string> = {
  asked_for_person: m.inbox_handover_asked_for_person,
  assistant_tool: m.inbox_handover_assistant_tool,
  no_knowledge: m.inbox_handover_no_knowledge,
  model_error: m.inbox_handover_model_error,
  turn_limit: m.inbox_handover_turn_limit,
  over_cap: m.inbox_handover_over_cap,
  flow: m.inbox_handover_flow,
  rule: m.inbox_handover_rule,
};

function EntryLine({ entry }: { entry: ThreadEntry }) {
  if (entry.kind === "note")
    return (
      <li className="mx-auto w-full max-w-md rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm" data-entry={entry.id}>
        <p className="text-[11px] font-semibold text-amber-900">
          {ENTRY_WORDS.note(entry)} · <time dateTime={entry.at}>{formatTime(entry.at)}</time> · {m.inbox_entry_never_sent()}
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
    <ol className="space-y-2" aria-label={m.inbox_thread_label()} data-testid="thread">
      {olderHref ? (
        <li className="text-center">
          <Link to={olderHref} className="text-xs font-medium text-brand-700 hover:underline" preventScrollReset>
            {m.inbox_thread_load_older()}
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
      {!items.length ? <li className="py-8 text-center text-sm text-slate-600">{m.inbox_thread_empty()}</li> : null}
    </ol>
  );
}
