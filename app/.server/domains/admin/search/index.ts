import { platformScope } from "../../../infrastructure/db/scope";
import { readSearchQuery, searchWith, SEARCH_LIMITS, type SearchSection } from "../../search";
import type { CurrentUser } from "../../auth";
import { exactTarget } from "./jump";
import { ADMIN_SEARCH_PROVIDERS } from "./providers";

export { SEARCH_LIMITS };

export type AdminSearch =
  | { kind: "empty" }
  | { kind: "invalid"; query: string; message: string }
  | { kind: "redirect"; to: string }
  | { kind: "results"; query: string; sections: SearchSection[] };

/**
 * The console's search for the text typed in the header: an exact id or invoice number goes
 * straight to its page; anything else lists organisations, users, invoices, WhatsApp numbers and
 * templates of every tenant, up to SEARCH_LIMITS.perProvider of each.
 */
export async function adminSearch(current: CurrentUser, raw: string | null): Promise<AdminSearch> {
  const scope = platformScope(current);
  const read = readSearchQuery(raw);
  if (read.ok === "empty") return { kind: "empty" };
  if (read.ok === false) return { kind: "invalid", query: read.typed, message: read.message };
  const to = await exactTarget(scope, read.query);
  if (to) return { kind: "redirect", to };
  return { kind: "results", query: read.query, sections: await searchWith(ADMIN_SEARCH_PROVIDERS, current, read.query) };
}
