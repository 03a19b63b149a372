import { href } from "react-router";
import type { Route } from "./+types/search";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { readSearchQuery } from "~/.server/domains/search/registry";
import { searchEverything } from "~/.server/domains/search/providers";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { SearchBox } from "~/components/ui/search";
import { SearchResults } from "~/components/ui/search-results";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

// Every member searches; its providers show only what the member may see.
export const handle: PermissionHandle = { permission: "signed-in" };

export const meta: Route.MetaFunction = () => [{ title: `${m.app_shell_search()} | Jumbe` }];

/** GET /search?q=: what the top bar's search box finds across the domains the user may see. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const read = readSearchQuery(args.url.searchParams.get("q"));
  if (read.ok === "empty") return { query: read.typed, message: null, sections: [] };
  if (read.ok === false) return { query: read.typed, message: read.message, sections: [] };
  return { query: read.query, message: null, sections: await searchEverything(current, read.query) };
}

export default function SearchPage({ loaderData }: Route.ComponentProps) {
  const { query, message, sections } = loaderData;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <PageTitle>{m.app_shell_search()}</PageTitle>
      <SearchBox
        action={href("/search")}
        id="search-page-q"
        label={m.app_shell_search()}
        defaultValue={query}
        maxLength={100}
        placeholder={m.app_search_placeholder()}
        suggest={href("/search/suggest")}
      />
      <SearchResults query={query} message={message} sections={sections} idPrefix="search" />
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
