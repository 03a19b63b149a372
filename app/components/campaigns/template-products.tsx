import { SECTIONS_MAX, type CampaignFormValues } from "~/lib/campaign-form";
import { CheckboxGroupField, Field, SelectField } from "~/components/ui/field";
import { m } from "~/paraglide/messages";
import type { CampaignChoices, TemplateChoice } from "./types";

/** A section's title: WhatsApp's limit. */
const SECTION_TITLE_MAX = 24;

/**
 * A catalog or multi-product template's products (decision 146), from the shop's products in the
 * WhatsApp catalog: the thumbnail product, and for a multi-product template its sections (a title and
 * products each). Without JavaScript the sections given and one more are shown; each post adds a row.
 */
export function TemplateProducts({
  template,
  products,
  values,
}: {
  template: TemplateChoice;
  products: CampaignChoices["products"];
  values: CampaignFormValues["products"] | undefined;
}) {
  if (!template.productButton) return null;
  if (!products.length) return <p className="mb-3 text-sm text-amber-900">{m.messaging_products_none()}</p>;
  const options = products.map((p) => ({ value: p.id, label: `${p.name} (${p.retailerId})` }));
  const given = values?.sections ?? [];
  const rows = template.productButton === "MPM" ? Math.min(SECTIONS_MAX, given.length + 1) : 0;
  return (
    <div className="mb-4 space-y-3">
      <p className="text-sm text-slate-700">
        {template.productButton === "MPM" ? m.messaging_products_mpm_intro() : m.messaging_products_catalog_intro()}
      </p>
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
          <CheckboxGroupField
            legend={m.messaging_products_section_products()}
            name={`s${i}_products`}
            options={options}
            defaultValues={given[i]?.productIds ?? []}
            className="max-h-64 overflow-y-auto"
          />
        </fieldset>
      ))}
      {template.productButton === "MPM" ? <p className="text-sm text-slate-600">{m.messaging_products_more_sections()}</p> : null}
    </div>
  );
}
