import { Form, href, Link } from "react-router";
import { Search } from "~/components/ui/icons";
import type { Route } from "./+types/search";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { readSearchQuery } from "~/.server/search/registry";
import { searchEverything } from "~/.server/search/providers";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";

export const meta: Route.MetaFunction = () => [{ title: "Search | Jumbe" }];

/** GET /search?q=: what the top bar's search box finds across the domains the user may see. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args);
  const raw = args.url.searchParams.get("q");
  const read = readSearchQuery(raw);
  const query = (raw ?? "").slice(0, 200);
  if (read.ok === "empty") return { query, message: null, sections: [] };
  if (read.ok === false) return { query, message: read.message, sections: [] };
  return { query: read.query, message: null, sections: await searchEverything(current, read.query) };
}

export default function SearchPage({ loaderData }: Route.ComponentProps) {
  const { query, message, sections } = loaderData;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <h1 className="text-2xl font-bold tracking-tight">Search</h1>
      <Form method="get" action={href("/search")} role="search" className="relative">
        <label htmlFor="search-page-q" className="sr-only">
          Search
        </label>
        <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden />
        <input
          id="search-page-q"
          name="q"
          type="search"
          defaultValue={query}
          maxLength={100}
          placeholder="Pages, WhatsApp numbers, activity..."
          className="w-full rounded-lg border border-slate-300 bg-white py-2.5 pr-3 pl-9 focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none"
        />
      </Form>
      {message ? (
        <p role="alert" className="text-sm text-red-700">
          {message}
        </p>
      ) : null}
      {!message && query && !sections.length ? <p className="text-slate-600">Nothing found for “{query}”.</p> : null}
      {sections.map((section) => (
        <Card padding="none" key={section.id} aria-labelledby={`search-${section.id}`}>
          <h2 id={`search-${section.id}`} className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-700">
            {section.label}
          </h2>
          <ul className="divide-y divide-slate-100">
            {section.hits.map((hit, i) => (
              <li key={i}>
                <Link to={hit.to} className="block px-4 py-3 hover:bg-slate-50">
                  <span className="block font-medium text-slate-900">{hit.title}</span>
                  {hit.detail ? <span className="block truncate text-sm text-slate-500">{hit.detail}</span> : null}
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      ))}
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
