import type { ReactNode } from "react";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";
import { ProductSearch } from "./product-search";

/** A product a picker offers: one the catalog holds now. */
export interface ChecklistProduct {
  id: string;
  name: string;
  /** Shown beside the name when given (the campaign form's, where the SKU tells variants apart). */
  retailerId?: string;
  priceCents: number;
  availability: string;
}

/** "Find a product by name or SKU" of a checklist: the words searched, where the GET goes, how many there are. */
export interface ChecklistSearch {
  query: string;
  action: string;
  total: number;
  /** Fields of the page's address the search keeps (the step being edited). */
  keep?: Record<string, string>;
}

/** A product's words in a list: its name (and SKU), price, and "out of stock" when it is. */
export function productLabel(p: ChecklistProduct) {
  const name = p.retailerId ? `${p.name} (${p.retailerId})` : p.name;
  return `${name} · ${formatKes(p.priceCents)}${p.availability === "out of stock" ? ` · ${m.shop_availability_out()}` : ""}`;
}

/**
 * The one product picker of every form that ticks products (issue 76: the inbox's Send products, the
 * automations' flow step and rule, a campaign's catalog or multi-product template): the ticked products
 * and the others the server found (at most PICKER_SHOWN), as checkboxes, with "Find a product by name
 * or SKU" when `search` is given (a GET of the whole form: it works without JavaScript). `box` names
 * each product's checkbox as its form reads it (`product_<id>` ticked "on" in the inbox, `productIds`
 * with the id elsewhere).
 */
export function ProductChecklist({
  id,
  legend,
  products,
  ticked,
  box,
  search,
  hint,
  error,
}: {
  id: string;
  legend: ReactNode;
  products: readonly ChecklistProduct[];
  ticked: readonly string[];
  box: (productId: string) => { name: string; value: string };
  search?: ChecklistSearch;
  hint?: ReactNode;
  error?: string;
}) {
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <fieldset id={id} aria-describedby={describedBy}>
      <legend className="field-label">{legend}</legend>
      {search ? (
        <ProductSearch
          query={search.query}
          action={search.action}
          keep={search.keep}
          shown={products.length}
          total={search.total}
          noMatch={products.every((p) => ticked.includes(p.id))}
        />
      ) : null}
      {products.length ? (
        <ul className="mt-1 max-h-64 space-y-1 overflow-y-auto rounded border border-slate-200 p-2">
          {products.map((p) => {
            const field = box(p.id);
            return (
              <li key={p.id}>
                <label className="flex items-start gap-2 text-sm">
                  <input
                    type="checkbox"
                    name={field.name}
                    value={field.value}
                    defaultChecked={ticked.includes(p.id)}
                    className="mt-0.5 size-4 rounded border-slate-300 text-brand-700 focus:ring-brand-600"
                  />
                  <span className="min-w-0 flex-1 break-words text-slate-900">{productLabel(p)}</span>
                </label>
              </li>
            );
          })}
        </ul>
      ) : null}
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
