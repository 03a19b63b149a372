import { pickerProducts } from "../shop";
import { STEP_FIELDS } from "../../../lib/schemas/flow-form";
import { FLOW_PRODUCT_KINDS } from "../../../lib/schemas/flows";
import { productSearchOf, tickedIds, valuesFromSearch } from "../../../lib/schemas/product-search";

/**
 * The products a flow step's or a keyword rule's "Send products" fields offer (decision 143), as the
 * inbox's picker does (decision 138's picker at 2,000 products): the ticked ones first, then at most
 * PICKER_SHOWN others matching the search by name or SKU, and how many there are in all. A save reads
 * only the ticked ids (checkProductChoice, through sendableByIds), never the whole catalogue.
 */
export async function offeredProducts(organizationId: string, picker: { query: string; chosenIds: readonly string[] }) {
  const found = await pickerProducts(organizationId, picker);
  return {
    products: found.products.map(({ id, name, priceCents, availability }) => ({ id, name, priceCents, availability })),
    total: found.total,
    query: found.query,
  };
}

export type OfferedProducts = Awaited<ReturnType<typeof offeredProducts>>;

/** The address's fields that say which step is being edited: a search keeps them. */
const EDITING_FIELDS = ["add", "step", "kind"] as const;

/**
 * A flow's products step being edited: its values (as the search typed them when the page was reached
 * by "Find a product", as stored otherwise) and the products its fields offer.
 */
export async function stepProducts(organizationId: string, url: URL, stored: Record<string, string>) {
  const query = productSearchOf(url.searchParams);
  // `kind` is also the address's step type for an end being made into this step (kept below): the product kind is the other.
  const productKind = url.searchParams.getAll("kind").find((k) => (FLOW_PRODUCT_KINDS as readonly string[]).includes(k)) ?? "";
  const values = query === null ? stored : { ...valuesFromSearch(url.searchParams, STEP_FIELDS.products, "productIds"), kind: productKind };
  const found = await offeredProducts(organizationId, { query: query ?? "", chosenIds: tickedIds(values, "productIds") });
  const keep = Object.fromEntries(
    EDITING_FIELDS.flatMap((name) => (url.searchParams.has(name) ? [[name, url.searchParams.get(name)!]] : [])),
  );
  return { values, offered: { ...found, action: url.pathname, keep } };
}
