import type { ReactNode } from "react";
import { Name } from "./name";

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
    <ol className={`grid gap-4 sm:grid-cols-3 ${className}`.trim()} aria-label="Message previews">
      {messages.map((m) => (
        <li key={m.to} className="min-w-0">
          <p className="mb-1 text-xs text-slate-500">
            To{" "}
            {m.name ? (
              <>
                <Name>{m.name}</Name>,{" "}
              </>
            ) : null}
            <span className="tabular-nums">{m.to}</span>
          </p>
          <div className="rounded-lg rounded-tl-none bg-[#dcf8c6] px-3 py-2 text-sm text-slate-900 shadow-sm">
            {m.header ? <p className="font-semibold">{m.header}</p> : null}
            <p className="whitespace-pre-line">{m.body}</p>
            {m.footer ? <p className="mt-1 text-xs text-slate-500">{m.footer}</p> : null}
          </div>
          {m.buttons?.length ? (
            <ul className="mt-1 space-y-1" aria-label="Buttons">
              {m.buttons.map((b, i) => (
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
