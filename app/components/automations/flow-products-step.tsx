import { Field, RadioGroupField, TextareaField } from "~/components/ui/field";
import { FLOW_PRODUCT_HEADER_MAX, FLOW_PRODUCT_KINDS, FLOW_PRODUCTS_MAX, FLOW_TEXT_MAX } from "~/lib/schemas/flows";
import { ProductChecklist } from "~/components/shop/product-checklist";
import { m } from "~/paraglide/messages";

type Errors = Record<string, string[] | undefined>;

/** A product the catalog holds now, as the forms offer it. */
export interface OfferedProduct {
  id: string;
  name: string;
  priceCents: number;
  availability: string;
}

// What the hint shows as an example of a variable: written as members write it, never translated.
const EXAMPLE_NAME = "{{contact.name}}";

/** What the fields offer: the picker's products, how many there are, the search typed and where it goes. */
export interface OfferedProducts {
  products: readonly OfferedProduct[];
  total: number;
  query: string;
  /** The page's address: the search reloads it with the whole form's fields (a GET, without JavaScript too). */
  action: string;
  /** Fields of the page's address the search must keep (the step being edited). */
  keep?: Record<string, string>;
}

/** What each kind of product message is called. */
export function productKindWords(kind: (typeof FLOW_PRODUCT_KINDS)[number] | string): string {
  if (kind === "product") return m.shop_send_kind_one();
  return kind === "catalog_message" ? m.shop_send_kind_catalog() : m.shop_send_kind_list();
}

/**
 * The products a flow step or a keyword rule sends (issue 76, decision 143): what kind of message,
 * the products (those the catalog holds now), a heading for a list and the text. Plain fields: they
 * work without JavaScript, the server checks them and answers at the field. `names` are the form's
 * field names (a flow step's, a rule's).
 */
export function ProductsFields({
  values,
  errors,
  offered,
  names = { kind: "kind", productIds: "productIds", header: "header", text: "text" },
  withNone = false,
}: {
  values: Record<string, string>;
  errors: Errors;
  /** The ticked products and at most 50 others matching the search, with how many there are in all. */
  offered: OfferedProducts;
  names?: { kind: string; productIds: string; header: string; text: string };
  /** A rule's: "send no products" is a choice too. */
  withNone?: boolean;
}) {
  const value = (name: string) => values[name] ?? "";
  const ticked = value(names.productIds).split(/\r?\n/).filter(Boolean);
  const { products, total, query, action, keep = {} } = offered;
  return (
    <>
      {!total && !query ? <p className="text-sm text-amber-800">{m.automations_products_none_synced()}</p> : null}
      <RadioGroupField
        legend={m.shop_send_kind()}
        name={names.kind}
        defaultValue={value(names.kind) || (withNone ? "" : "product_list")}
        errors={errors[names.kind]}
        options={[
          ...(withNone ? [{ value: "", label: m.automations_products_kind_none() }] : []),
          ...FLOW_PRODUCT_KINDS.map((kind) => ({ value: kind, label: productKindWords(kind) })),
        ]}
      />
      {total || query || products.length ? (
        <ProductChecklist
          id={`${names.productIds}-picker`}
          legend={m.shop_send_products()}
          products={products}
          ticked={ticked}
          box={(id) => ({ name: names.productIds, value: id })}
          search={total || query ? { query, action, keep, total } : undefined}
          hint={m.automations_products_hint({ max: FLOW_PRODUCTS_MAX })}
          error={errors[names.productIds]?.[0]}
        />
      ) : null}
      <Field
        name={names.header}
        label={m.shop_send_header()}
        hint={m.shop_send_header_hint()}
        maxLength={FLOW_PRODUCT_HEADER_MAX}
        defaultValue={value(names.header)}
        errors={errors[names.header]}
      />
      <TextareaField
        name={names.text}
        label={m.shop_send_body()}
        hint={withNone ? m.automations_products_text_required() : m.automations_products_text_hint({ example: EXAMPLE_NAME })}
        maxLength={FLOW_TEXT_MAX}
        defaultValue={value(names.text)}
        errors={errors[names.text]}
      />
    </>
  );
}
