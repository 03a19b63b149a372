import { data, Form, href, Link, redirect } from "react-router";
import type { Route } from "./+types/search";
import { requirePlatformAdmin } from "~/.server/auth/guards";
import { adminSearch, SEARCH_LIMITS } from "~/.server/admin/search";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import { Search } from "~/components/ui/icons";

export const meta: Route.MetaFunction = () => [{ title: "Search | Admin console | Jumbe" }];

/**
 * GET /admin/search?q=: the header's search from every tab but Users. An exact id or invoice number
 * opens its page; any other text lists what matches across every tenant; too short or too long is a 400.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const found = await adminSearch(current, args.url.searchParams.get("q"));
  const limits = { ...SEARCH_LIMITS };
  switch (found.kind) {
    case "redirect":
      return redirect(found.to);
    case "empty":
      return { query: "", message: null, sections: [], limits };
    case "invalid":
      return data({ query: found.query, message: found.message, sections: [], limits }, { status: 400 });
    default:
      return { query: found.query, message: null, sections: found.sections, limits };
  }
}

export default function AdminSearch({ loaderData }: Route.ComponentProps) {
  const { query, message, sections, limits } = loaderData;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Search</h1>
        <p className="mt-1 text-slate-600">
          Organisations, users, invoices, WhatsApp numbers and templates of every tenant. An id or an invoice number opens its page.
        </p>
      </div>
      <Form method="get" action={href("/admin/search")} role="search" className="relative">
        <label htmlFor="admin-search-page-q" className="sr-only">
          Search the platform
        </label>
        <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500" aria-hidden />
        <input
          id="admin-search-page-q"
          name="q"
          type="search"
          defaultValue={query}
          placeholder="Name, e-mail, phone, invoice number, WABA id..."
          aria-describedby={message ? "admin-search-message" : undefined}
          aria-invalid={message ? true : undefined}
          className="w-full rounded-lg border border-slate-300 bg-white py-2.5 pr-3 pl-9 focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none"
        />
      </Form>
      {message ? (
        <p id="admin-search-message" role="alert" className="text-sm text-red-700">
          {message}
        </p>
      ) : null}
      {!message && !query ? (
        <p className="text-slate-600">
          Type {limits.minLength} to {limits.maxLength} characters: part of a name, an e-mail address, a phone number, an invoice number, a
          WABA or phone number id, or a template&apos;s name.
        </p>
      ) : null}
      {!message && query && !sections.length ? <p className="text-slate-600">Nothing found for “{query}”.</p> : null}
      {sections.map((section) => (
        <Card padding="none" key={section.id} aria-labelledby={`admin-search-${section.id}`}>
          <h2 id={`admin-search-${section.id}`} className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-700">
            {section.label}
            {section.hits.length >= limits.perProvider ? (
              <span className="font-normal text-slate-600"> (the first {limits.perProvider}: add more words to narrow)</span>
            ) : null}
          </h2>
          <ul className="divide-y divide-slate-100">
            {section.hits.map((hit, i) => (
              <li key={i}>
                <Link to={hit.to} className="block px-4 py-3 hover:bg-slate-50">
                  <span className="block font-medium text-slate-900">{hit.title}</span>
                  {hit.detail ? <span className="block truncate text-sm text-slate-600">{hit.detail}</span> : null}
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      ))}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
