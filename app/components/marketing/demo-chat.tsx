import { CheckCheck, SendHorizontal } from "~/components/ui/icons";
import { m } from "~/paraglide/messages";
import type { DemoChatScript } from "./content";

/**
 * A WhatsApp-style demo conversation. The scripted lines are plain HTML, so they read without
 * JavaScript; the message box starts disabled and app/assets/landing.js enables it, appending a typed
 * message as sent with the current time (blank input is ignored).
 */
export function DemoChat({ chat, className = "" }: { chat: DemoChatScript; className?: string }) {
  return (
    <div data-demo-chat className={`w-full max-w-sm overflow-hidden rounded-3xl border border-slate-200 bg-white shadow-xl ${className}`}>
      <div className="flex items-center gap-3 bg-brand-700 px-4 py-3 text-white">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-full bg-white/15 text-sm font-bold" aria-hidden>
          {chat.name.charAt(0)}
        </span>
        <div className="leading-tight">
          <p className="text-sm font-semibold">{chat.name}</p>
          <p className="text-xs text-brand-100">{chat.status}</p>
        </div>
      </div>
      <div
        role="log"
        aria-label={m.public_chat_log_label({ name: chat.name })}
        tabIndex={0}
        data-demo-chat-log
        className="flex max-h-[28rem] min-h-64 flex-col gap-2 overflow-y-auto bg-[#efeae2] p-3 text-sm"
      >
        {chat.lines.map((line, i) =>
          line.from === "me" ? (
            <SentBubble key={i} text={line.text} time={line.time} />
          ) : (
            <ReceivedBubble key={i} text={line.text} time={line.time} />
          ),
        )}
      </div>
      <form data-demo-chat-form className="flex items-center gap-2 border-t border-slate-200 bg-slate-50 p-2">
        <input
          name="message"
          type="text"
          autoComplete="off"
          disabled
          aria-label={chat.inputLabel}
          placeholder={m.public_chat_placeholder()}
          className="min-w-0 flex-1 rounded-full border border-slate-300 bg-white px-4 py-2.5 text-base text-slate-900 placeholder:text-slate-600 disabled:bg-slate-100"
        />
        <button
          type="submit"
          disabled
          aria-label={m.public_chat_send()}
          className="flex size-11 shrink-0 items-center justify-center rounded-full bg-brand-700 text-white hover:bg-brand-900 disabled:opacity-60"
        >
          <SendHorizontal className="size-5" aria-hidden />
        </button>
      </form>
    </div>
  );
}

export function SentBubble({ text, time }: { text: string; time: string }) {
  return (
    <div data-sent className="ml-auto max-w-[85%] rounded-lg rounded-tr-none bg-[#d9fdd3] px-3 py-2 text-slate-900 shadow-sm">
      <span className="sr-only">{m.public_chat_you()}</span>
      <span data-text className="break-words">
        {text}
      </span>
      <span className="mt-0.5 flex items-center justify-end gap-1 text-xs text-slate-600">
        <time data-time>{time}</time>
        <CheckCheck className="size-3.5 text-sky-700" aria-hidden />
      </span>
    </div>
  );
}

function ReceivedBubble({ text, time }: { text: string; time: string }) {
  return (
    <div className="mr-auto max-w-[85%] rounded-lg rounded-tl-none bg-white px-3 py-2 text-slate-900 shadow-sm">
      <span>{text}</span>
      <span className="mt-0.5 block text-right text-xs text-slate-600">
        <time>{time}</time>
      </span>
    </div>
  );
}

/** The one template the page script clones for a visitor's message (a sent bubble). */
export function SentBubbleTemplate() {
  return (
    <template id="demo-chat-sent">
      <SentBubble text="" time="" />
    </template>
  );
}
