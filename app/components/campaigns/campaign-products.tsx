import type { CampaignProductShown } from "~/.server/domains/campaigns/products";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

/**
 * A catalog or multi-product campaign's products (decision 146): name, SKU and price in KES, under
 * their section's title, the thumbnail marked. Shown on the Review step and on the campaign's page.
 */
export function CampaignProducts({ products, className = "" }: { products: CampaignProductShown[]; className?: string }) {
  if (!products.length) return null;
  const sections = [...new Set(products.map((p) => p.section))];
  return (
    <div className={className} data-testid="campaign-products">
      <h3 className="text-sm font-semibold text-slate-900">{m.messaging_products_shown_title()}</h3>
      {sections.map((section) => (
        <div key={section ?? ""} className="mt-2">
          {section ? <h4 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">{section}</h4> : null}
          <ul className="divide-y divide-slate-100 text-sm">
            {products
              .filter((p) => p.section === section)
              .map((p) => (
                <li key={`${p.section ?? ""}-${p.id}`} className="flex flex-wrap items-baseline justify-between gap-x-3 py-1.5">
                  <span className="min-w-0 break-words text-slate-900">
                    {p.name} <span className="text-xs text-slate-500">({p.retailerId})</span>
                    {p.thumbnail ? (
                      <span className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">
                        {m.messaging_products_shown_thumbnail()}
                      </span>
                    ) : null}
                  </span>
                  <span className="text-slate-700 tabular-nums">{formatKes(p.priceCents)}</span>
                </li>
              ))}
          </ul>
        </div>
      ))}
    </div>
  );
}
