import { Form } from "react-router";
import { Search } from "./icons";
import { useEnhanced } from "./enhanced";
import { m } from "~/paraglide/messages";

const BOX = {
  /** In a top bar: small, on grey. */
  bar: {
    icon: "text-slate-400",
    input: "w-full rounded-lg border border-slate-200 bg-slate-50 py-2 pr-3 pl-9 text-sm focus:border-brand-600 focus:outline-none",
  },
  /** A search page's own box: full size, on white. */
  page: {
    icon: "text-slate-500",
    input:
      "w-full rounded-lg border border-slate-300 bg-white py-2.5 pr-3 pl-9 focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none",
  },
} as const;

/**
 * A search box: a GET form (role=search) sending `q` to `action`, with a magnifier, a label for
 * screen readers only, and the reason a query was refused tied to it (`messageId`).
 *
 * With `suggest` (the address of a route answering `?q=` with a few hits as JSON), app/assets/forms.js
 * lists what the search finds under the box as one types (issue 74), on hydrated pages and documents
 * alike; without scripts, and with them, Enter opens the search page.
 */
export function SearchBox({
  action,
  id,
  label,
  defaultValue,
  placeholder,
  maxLength,
  messageId,
  variant = "page",
  className = "",
  suggest,
}: {
  action: string;
  id: string;
  label: string;
  defaultValue?: string;
  placeholder: string;
  maxLength?: number;
  /** The id of the refusal's text, when the query was refused. */
  messageId?: string;
  variant?: keyof typeof BOX;
  className?: string;
  /** Where forms.js asks for suggestions as one types (app/routes/app/search-suggest.ts). */
  suggest?: string;
}) {
  const look = BOX[variant];
  const enhance = useEnhanced<HTMLFormElement>();
  return (
    <Form
      method="get"
      action={action}
      role="search"
      className={`relative ${className}`.trim()}
      // A hydrated page asks for the script when the box is first used, not with the page (its first visit stays light).
      onFocus={suggest ? (event) => enhance(event.currentTarget) : undefined}
      data-suggest={suggest}
      // The script holds no words: these come in the page's language ({count} and {query} filled in by it).
      data-suggest-count={suggest ? m.app_search_suggestions({ count: "{count}" }) : undefined}
      data-suggest-none={suggest ? m.app_search_nothing_found({ query: "{query}" }) : undefined}
    >
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Search className={`pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 ${look.icon}`} aria-hidden />
      <input
        id={id}
        name="q"
        type="search"
        defaultValue={defaultValue}
        maxLength={maxLength}
        placeholder={placeholder}
        aria-describedby={messageId}
        aria-invalid={messageId ? true : undefined}
        className={look.input}
      />
    </Form>
  );
}
