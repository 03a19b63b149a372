import { Form } from "react-router";
import { Button } from "~/components/ui/button";
import { ProductChecklist } from "./product-checklist";
import { m } from "~/paraglide/messages";

export interface PickerProduct {
  id: string;
  name: string;
  retailerId: string;
  priceCents: number;
  availability: string;
}

const SEND_KINDS = ["product_list", "product", "catalog_message"] as const;

/** What each kind of product message is called. */
function kindWords(kind: (typeof SEND_KINDS)[number]) {
  if (kind === "product") return m.shop_send_kind_one();
  return kind === "catalog_message" ? m.shop_send_kind_catalog() : m.shop_send_kind_list();
}

function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-red-700">
      {message}
    </p>
  );
}

export interface PickerState {
  /** The ticked products first, then up to the picker's limit matching the search. */
  products: PickerProduct[];
  /** How many products there are to show: the ticked ones and all those matching the search. */
  total: number;
  query: string;
  /** What the picker's search carried: the ticked boxes and the typed fields. */
  values: Record<string, string>;
}

/**
 * The shop in the composer (decision 138): a product, a list of products or the catalogue, sent as
 * WhatsApp's product messages inside the 24-hour window. A plain form: it works without JavaScript,
 * the server checks every field and answers at the field.
 */
export function ProductPicker({
  picker,
  action,
  failed,
}: {
  picker: PickerState | null;
  /** The conversation's address: the search reloads it with the picker's fields (a GET, without JavaScript too). */
  action: string;
  failed: { errors?: Record<string, string>; values?: Record<string, string> } | undefined;
}) {
  const errors = failed?.errors ?? {};
  const searched = Boolean(picker?.query) || Object.keys(picker?.values ?? {}).length > 0;
  if (!picker || (!picker.total && !searched)) return null;
  const { products, total, query } = picker;
  const values = failed?.values ?? picker.values;
  const open = searched || ["products", "productKind", "productHeader", "productBody"].some((k) => errors[k]);
  const kind = values.productKind || "product_list";
  return (
    <details id="shop-details" className="text-sm" open={open}>
      <summary className="cursor-pointer text-xs font-medium text-slate-600 hover:text-slate-900">{m.shop_send_open()}</summary>
      <Form method="post" className="mt-2 space-y-3" aria-label={m.shop_send_title()}>
        <fieldset>
          <legend className="text-xs font-medium text-slate-700">{m.shop_send_kind()}</legend>
          <div className="mt-1 flex flex-wrap gap-3">
            {SEND_KINDS.map((value) => (
              <label key={value} className="inline-flex items-center gap-1">
                <input type="radio" name="productKind" value={value} defaultChecked={kind === value} /> {kindWords(value)}
              </label>
            ))}
          </div>
          <FieldError id="shop-kind-error" message={errors.productKind} />
        </fieldset>
        <ProductChecklist
          id="shop-products"
          legend={m.shop_send_products()}
          products={products}
          ticked={products.filter((p) => values[`product_${p.id}`] === "on").map((p) => p.id)}
          box={(id) => ({ name: `product_${id}`, value: "on" })}
          search={{ query, action, total }}
          error={errors.products}
        />
        <div>
          <label htmlFor="shop-header" className="block text-xs font-medium text-slate-700">
            {m.shop_send_header()}
          </label>
          <input
            id="shop-header"
            name="productHeader"
            maxLength={60}
            defaultValue={values.productHeader ?? ""}
            aria-invalid={errors.productHeader ? true : undefined}
            aria-describedby={errors.productHeader ? "shop-header-error" : "shop-header-hint"}
            className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-1.5 text-sm aria-invalid:border-red-500"
          />
          <p id="shop-header-hint" className="mt-1 text-xs text-slate-500">
            {m.shop_send_header_hint()}
          </p>
          <FieldError id="shop-header-error" message={errors.productHeader} />
        </div>
        <div>
          <label htmlFor="shop-body" className="block text-xs font-medium text-slate-700">
            {m.shop_send_body()}
          </label>
          <textarea
            id="shop-body"
            name="productBody"
            rows={2}
            maxLength={1024}
            defaultValue={values.productBody ?? ""}
            aria-invalid={errors.productBody ? true : undefined}
            aria-describedby={errors.productBody ? "shop-body-error" : undefined}
            className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-1.5 text-sm aria-invalid:border-red-500"
          />
          <FieldError id="shop-body-error" message={errors.productBody} />
        </div>
        <Button type="submit" name="intent" value="products" size="sm">
          {m.shop_send_submit()}
        </Button>
      </Form>
    </details>
  );
}
