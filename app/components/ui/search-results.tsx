import { Link } from "~/components/ui/link";
import { Card } from "./card";
import { Name } from "./name";
import { m } from "~/paraglide/messages";

// Only the search pages show results: apart from the SearchBox, which every signed-in page's top bar carries.

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
  if (query && !sections.length) return <p className="text-slate-600">{m.app_search_nothing_found({ query })}</p>;
  return sections.map((section) => (
    <Card padding="none" key={section.id} aria-labelledby={`${idPrefix}-${section.id}`}>
      <h2 id={`${idPrefix}-${section.id}`} className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-700">
        {section.label}
        {cappedAt !== undefined && section.hits.length >= cappedAt ? (
          <span className="font-normal text-slate-600"> {m.app_search_capped({ count: cappedAt })}</span>
        ) : null}
      </h2>
      <ul className="divide-y divide-slate-100">
        {section.hits.map((hit, i) => (
          <li key={i}>
            <Link to={hit.to} className="link-row">
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
