import { data, href, redirect } from "react-router";
import type { Route } from "./+types/search";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { adminSearch, SEARCH_LIMITS } from "~/.server/domains/admin/search";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { SearchBox } from "~/components/ui/search";
import { SearchResults } from "~/components/ui/search-results";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_search_title() }) }];

/**
 * GET /admin/search?q=: the header's search from every tab but Users. An exact id or invoice number
 * opens its page; any other text lists what matches across every tenant; too short or too long is a 400.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
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
        <PageTitle>{m.admin_search_title()}</PageTitle>
        <p className="mt-1 text-slate-600">{m.admin_search_intro()}</p>
      </div>
      <SearchBox
        action={href("/admin/search")}
        id="admin-search-page-q"
        label={m.admin_search_platform_label()}
        defaultValue={query}
        placeholder={m.admin_search_placeholder()}
        messageId={message ? "admin-search-message" : undefined}
      />
      {!message && !query ? (
        <p className="text-slate-600">{m.admin_search_hint({ min: limits.minLength, max: limits.maxLength })}</p>
      ) : null}
      <SearchResults
        query={query}
        message={message}
        messageId="admin-search-message"
        sections={sections}
        idPrefix="admin-search"
        cappedAt={limits.perProvider}
      />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
