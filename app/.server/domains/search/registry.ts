import { can, type Permission, type CurrentUser } from "../auth";
import { m } from "~/paraglide/messages";

/** One thing a search found: what it is, where it lives, and a line of context. */
export interface SearchHit {
  title: string;
  detail?: string;
  /** A page of the product (a local path). */
  to: string;
}

/**
 * A domain's part in the search boxes. Each domain registers what it can find (app/.server/domains/search/
 * providers.ts lists them); a provider runs only for roles holding its permission, and searches only
 * inside the searcher's own organisation unless it is a platform provider.
 */
export interface SearchProvider {
  id: string;
  /** The heading its hits appear under, in the request's language (a getter where it is words). */
  label: string;
  permission?: Permission;
  search(current: CurrentUser, query: string, limit: number): Promise<SearchHit[]>;
}

/** `suggested` hits a section, `suggestions` in all, while a box suggests as one types (a small answer for slow networks). */
export const SEARCH_LIMITS = { minLength: 2, maxLength: 100, perProvider: 8, suggested: 4, suggestions: 8 } as const;

/** `typed`: what was sent, cut to twice the longest query, to show back in the box of a refused or empty search. */
export type SearchQuery = { ok: true; query: string } | { ok: false; message: string; typed: string } | { ok: "empty"; typed: string };

/** The search box's text, trimmed: 2 to 100 characters. */
export function readSearchQuery(raw: string | null): SearchQuery {
  const typed = (raw ?? "").slice(0, SEARCH_LIMITS.maxLength * 2);
  // Control characters (NUL included, which PostgreSQL refuses in text) become spaces.
  const query = [...(raw ?? "")]
    .map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? " " : c))
    .join("")
    .replace(/\s+/g, " ")
    .trim();
  if (!query) return { ok: "empty", typed };
  if (query.length < SEARCH_LIMITS.minLength)
    return { ok: false, message: m.app_search_too_short({ min: SEARCH_LIMITS.minLength }), typed };
  if (query.length > SEARCH_LIMITS.maxLength) return { ok: false, message: m.app_search_too_long({ max: SEARCH_LIMITS.maxLength }), typed };
  return { ok: true, query };
}

/** A phone number's digits as stored (international): Kenyans type 07..., 01... or +254 7...; anything not a digit is dropped. */
export function internationalDigits(text: string) {
  const typed = text.replace(/\D/g, "");
  return typed.startsWith("0") ? `254${typed.slice(1)}` : typed;
}

/** `%` and `_` match themselves in a LIKE pattern built from user text. */
export function likePattern(query: string) {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface SearchSection {
  id: string;
  label: string;
  hits: SearchHit[];
}

/** Runs every provider the user may use, side by side; sections with no hits are left out. */
export async function searchWith(
  providers: SearchProvider[],
  current: CurrentUser,
  query: string,
  limit: number = SEARCH_LIMITS.perProvider,
): Promise<SearchSection[]> {
  const allowed = providers.filter((p) => !p.permission || can(current.role, p.permission));
  const results = await Promise.all(allowed.map(async (p) => ({ id: p.id, label: p.label, hits: await p.search(current, query, limit) })));
  return results.filter((section) => section.hits.length > 0);
}
