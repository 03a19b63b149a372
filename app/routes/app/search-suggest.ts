import type { Route } from "./+types/search-suggest";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { readSearchQuery } from "~/.server/domains/search/registry";
import { suggestionsFor } from "~/.server/domains/search/providers";
import type { PermissionHandle } from "~/lib/permissions";

// Every member searches; its providers show only what the member may see.
export const handle: PermissionHandle = { permission: "signed-in" };

/**
 * GET /search/suggest?q=: what the search boxes list as one types (app/assets/forms.js, issue 74), as
 * JSON: the query it answers and a few hits, each with its section's name. A query too short or too
 * long finds nothing here (the search page says why).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const read = readSearchQuery(args.url.searchParams.get("q"));
  const hits = read.ok === true ? await suggestionsFor(current, read.query) : [];
  return Response.json(
    { query: read.ok === true ? read.query : "", hits },
    // Each member's own, and stale as soon as something changes.
    { headers: { "cache-control": "private, no-store" } },
  );
}
