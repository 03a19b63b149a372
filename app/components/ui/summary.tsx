import type { ReactNode } from "react";
import { Name } from "./name";
import { m } from "~/paraglide/messages";

/** Label and value pairs in a grid (a review's figures, a record's details). */
export function SummaryList({ items, className = "" }: { items: { label: string; value: ReactNode }[]; className?: string }) {
  return (
    <dl className={`grid gap-x-6 gap-y-3 text-sm sm:grid-cols-3 ${className}`.trim()}>
      {items.map((item) => (
        <div key={item.label} className="min-w-0">
          <dt className="text-slate-500">{item.label}</dt>
          <dd className="mt-0.5 font-medium break-words text-slate-900">{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export interface PreviewedMessage {
  to: string;
  name: string | null;
  header: string | null;
  body: string;
  footer: string | null;
  /** Buttons with a value per person: their label and the link they open or the code they copy. */
  buttons?: { text: string; value: string }[];
}

/** WhatsApp-like bubbles of messages as their recipients will read them, each under its recipient. */
export function MessagePreviewList({
  messages,
  empty,
  className = "",
}: {
  messages: PreviewedMessage[];
  empty: ReactNode;
  className?: string;
}) {
  if (!messages.length) return <p className={`text-sm text-slate-600 ${className}`.trim()}>{empty}</p>;
  return (
    <ol className={`grid gap-4 sm:grid-cols-3 ${className}`.trim()} aria-label={m.app_ui_message_previews()}>
      {messages.map((message) => (
        <li key={message.to} className="min-w-0">
          <p className="mb-1 text-xs text-slate-500">
            {m.app_ui_preview_to()}{" "}
            {message.name ? (
              <>
                <Name>{message.name}</Name>,{" "}
              </>
            ) : null}
            <span className="tabular-nums">{message.to}</span>
          </p>
          <div className="rounded-lg rounded-tl-none bg-[#dcf8c6] px-3 py-2 text-sm text-slate-900 shadow-sm">
            {message.header ? <p className="font-semibold">{message.header}</p> : null}
            <p className="whitespace-pre-line">{message.body}</p>
            {message.footer ? <p className="mt-1 text-xs text-slate-500">{message.footer}</p> : null}
          </div>
          {message.buttons?.length ? (
            <ul className="mt-1 space-y-1" aria-label={m.app_ui_buttons()}>
              {message.buttons.map((b, i) => (
                <li key={i} className="rounded-lg bg-white px-3 py-1.5 text-center text-sm text-sky-700 shadow-sm">
                  <span className="font-medium">{b.text}</span>
                  <span className="block text-xs break-all text-slate-500">{b.value}</span>
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
