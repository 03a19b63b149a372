import { SECTIONS_MAX, type CampaignFormValues } from "~/lib/campaign-form";
import { Field, SelectField } from "~/components/ui/field";
import { ProductChecklist } from "~/components/shop/product-checklist";
import { ProductSearch } from "~/components/shop/product-search";
import { m } from "~/paraglide/messages";
import type { CampaignPicker, TemplateChoice } from "./types";

/** A section's title: WhatsApp's limit. */
const SECTION_TITLE_MAX = 24;

/**
 * A catalog or multi-product template's products (decision 146), from the shop's products in the
 * WhatsApp catalog: the thumbnail product, and for a multi-product template its sections (a title and
 * products each). Without JavaScript the sections given and one more are shown; each post adds a row.
 * The products offered are the inbox's picker's (decision 138): those chosen, then at most 50 others
 * found by name or SKU, "Find a product" a GET of the whole form that keeps what was typed and ticked.
 */
export function TemplateProducts({
  template,
  picker,
  values,
}: {
  template: TemplateChoice;
  picker: CampaignPicker | null;
  values: CampaignFormValues["products"] | undefined;
}) {
  if (!template.productButton) return null;
  if (!picker || (!picker.total && !picker.query)) return <p className="mb-3 text-sm text-amber-900">{m.messaging_products_none()}</p>;
  const { products } = picker;
  const options = products.map((p) => ({ value: p.id, label: `${p.name} (${p.retailerId})` }));
  const given = values?.sections ?? [];
  const chosen = [values?.thumbnail ?? "", ...given.flatMap((s) => s.productIds)].filter(Boolean);
  const rows = template.productButton === "MPM" ? Math.min(SECTIONS_MAX, given.length + 1) : 0;
  return (
    <div className="mb-4 space-y-3">
      <p className="text-sm text-slate-700">
        {template.productButton === "MPM" ? m.messaging_products_mpm_intro() : m.messaging_products_catalog_intro()}
      </p>
      <ProductSearch
        query={picker.query}
        action={picker.action}
        shown={products.length}
        total={picker.total}
        noMatch={products.every((p) => chosen.includes(p.id))}
      />
      <SelectField
        label={m.messaging_products_thumbnail()}
        name="pr_thumb"
        defaultValue={values?.thumbnail ?? ""}
        hint={m.messaging_products_thumbnail_hint()}
        options={[{ value: "", label: m.messaging_products_choose() }, ...options]}
      />
      {Array.from({ length: rows }, (_, i) => (
        <fieldset key={i} className="rounded-lg border border-slate-200 p-3">
          <legend className="px-1 text-sm font-medium text-slate-700">{m.messaging_products_section({ number: i + 1 })}</legend>
          <Field
            label={m.messaging_products_section_title()}
            name={`s${i}_title`}
            defaultValue={given[i]?.title ?? ""}
            maxLength={SECTION_TITLE_MAX}
            hint={m.messaging_products_section_title_hint({ max: SECTION_TITLE_MAX })}
          />
          <ProductChecklist
            id={`s${i}-products`}
            legend={m.messaging_products_section_products()}
            products={products}
            ticked={given[i]?.productIds ?? []}
            box={(id) => ({ name: `s${i}_products`, value: id })}
          />
        </fieldset>
      ))}
      {template.productButton === "MPM" ? <p className="text-sm text-slate-600">{m.messaging_products_more_sections()}</p> : null}
    </div>
  );
}
