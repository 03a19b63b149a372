// The automations' "Send products" fields searched without JavaScript (issue 76): the picker's search
// is a GET of the whole form to the page's address, so what was typed and ticked comes back in the
// query and the page shows the form as it was, with the products found.

/** The search's words as posted (`pq`), or null when the page was not reached by a search. */
export const productSearchOf = (params: URLSearchParams): string | null =>
  params.has("pq") ? (params.get("pq") ?? "").slice(0, 100) : null;

/**
 * A form's values as its search carried them: each of `fields` as typed (a field absent, such as an
 * unticked box, is empty), the ticked products (`productIds`, posted once per box) one a line.
 */
export function valuesFromSearch(params: URLSearchParams, fields: readonly string[], productIdsField: string): Record<string, string> {
  return Object.fromEntries(
    fields.map((field) => [field, field === productIdsField ? params.getAll(field).join("\n") : (params.get(field) ?? "")]),
  );
}

/** The ticked products of a form's values (one a line). */
export const tickedIds = (values: Record<string, string>, productIdsField: string) =>
  (values[productIdsField] ?? "").split(/\r?\n/).filter(Boolean);
