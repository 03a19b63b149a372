import { Form, Link } from "react-router";
import { Card } from "./card";
import { Search } from "./icons";
import { Name } from "./name";

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
}) {
  const look = BOX[variant];
  return (
    <Form method="get" action={action} role="search" className={`relative ${className}`.trim()}>
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

export interface SearchResultSection {
  id: string;
  label: string;
  hits: { title: string; detail?: string; to: string }[];
}

/**
 * What a search found, grouped: a card a section (its label a heading, `cappedAt` hits or more
 * noted as the first ones), a link a hit with its line of context; "Nothing found" for a query
 * that found nothing; or why the query was refused (`message`, an alert with the id `messageId`
 * the SearchBox points to). `idPrefix` keeps the headings' ids apart from the page's others.
 */
export function SearchResults({
  query,
  message,
  messageId,
  sections,
  idPrefix,
  cappedAt,
}: {
  query: string;
  message: string | null;
  messageId?: string;
  sections: SearchResultSection[];
  idPrefix: string;
  cappedAt?: number;
}) {
  if (message)
    return (
      <p id={messageId} role="alert" className="text-sm text-red-700">
        {message}
      </p>
    );
  if (query && !sections.length) return <p className="text-slate-600">Nothing found for “{query}”.</p>;
  return sections.map((section) => (
    <Card padding="none" key={section.id} aria-labelledby={`${idPrefix}-${section.id}`}>
      <h2 id={`${idPrefix}-${section.id}`} className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-700">
        {section.label}
        {cappedAt !== undefined && section.hits.length >= cappedAt ? (
          <span className="font-normal text-slate-600"> (the first {cappedAt}: add more words to narrow)</span>
        ) : null}
      </h2>
      <ul className="divide-y divide-slate-100">
        {section.hits.map((hit, i) => (
          <li key={i}>
            <Link to={hit.to} className="block px-4 py-3 hover:bg-slate-50">
              {/* Mostly names people typed: an organisation's, a person's, a contact's. */}
              <span className="block font-medium text-slate-900">
                <Name>{hit.title}</Name>
              </span>
              {hit.detail ? <span className="block truncate text-sm text-slate-600">{hit.detail}</span> : null}
            </Link>
          </li>
        ))}
      </ul>
    </Card>
  ));
}
