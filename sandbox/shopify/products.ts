import type { ShopifyContext } from "./context";
import { emit } from "./events";
import type { Product, Shop, Variant } from "./state";
import type { WebhookRecord } from "./webhooks";

/**
 * The shop's catalogue (issue 76, decision 142): products with variants, seeded through the control
 * API or the console, read by an app through GraphQL `products` (cursor paging, `read_products`) and
 * `nodes`, and announced by the products/create, products/update and products/delete webhooks in
 * Shopify's REST shape.
 */

type Json = Record<string, unknown>;

export class ProductSpecError extends Error {}

const iso = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
const gid = (kind: string, id: number) => `gid://shopify/${kind}/${id}`;
const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : null);
const STATUSES = ["active", "draft", "archived"] as const;

function variantOf(ctx: ShopifyContext, raw: unknown, i: number): Variant {
  const v = (raw ?? {}) as Json;
  const price = Number(v.price ?? 0);
  const quantity = Number(v.inventory_quantity ?? v.inventoryQuantity ?? 10);
  if (!Number.isFinite(price) || price < 0 || !Number.isInteger(quantity))
    throw new ProductSpecError("Each variant needs a price of 0 or more and a whole inventory_quantity.");
  return {
    id: ctx.state.newId(),
    title: text(v.title) ?? (i === 0 ? "Default Title" : `Variant ${i + 1}`),
    sku: text(v.sku),
    price: price.toFixed(2),
    inventoryQuantity: quantity,
    imageUrl: text(v.image_url),
  };
}

function productOf(ctx: ShopifyContext, shop: Shop, raw: unknown): Product {
  const spec = (raw ?? {}) as Json;
  const title = text(spec.title);
  if (!title) throw new ProductSpecError("Each product needs a title.");
  const status = (text(spec.status) ?? "active") as Product["status"];
  if (!STATUSES.includes(status)) throw new ProductSpecError(`status must be one of ${STATUSES.join(", ")}.`);
  const variants =
    Array.isArray(spec.variants) && spec.variants.length ? spec.variants : [{ price: spec.price ?? "1000.00", sku: spec.sku }];
  if (variants.length > 100) throw new ProductSpecError("A product has at most 100 variants here.");
  const at = ctx.options.now();
  return {
    id: ctx.state.newId(),
    shop: shop.domain,
    title,
    description: text(spec.description) ?? "",
    status,
    imageUrl:
      text(spec.image_url) ?? `https://cdn.shopify.com/s/files/sandbox/${encodeURIComponent(title.toLowerCase().replace(/\s+/g, "-"))}.jpg`,
    variants: variants.map((v, i) => variantOf(ctx, v, i)),
    createdAt: at,
    updatedAt: at,
  };
}

/** Products added to the shop (at most 250 a call): products/create for each. */
export function addProducts(ctx: ShopifyContext, shop: Shop, specs: unknown) {
  if (!Array.isArray(specs) || specs.length < 1 || specs.length > 250) throw new ProductSpecError("products must be a list of 1 to 250.");
  const made = specs.map((spec) => productOf(ctx, shop, spec));
  for (const product of made) ctx.state.products.set(product.id, product);
  ctx.state.changed();
  const webhooks = made.flatMap((p) => emit(ctx, shop, "products/create", productPayload(p)));
  return { products: made.map(productPayload), webhooks };
}

/** A product changed (title, status, a variant's price, SKU or stock): products/update. */
export function changeProduct(ctx: ShopifyContext, shop: Shop, product: Product, spec: Json): { product: Json; webhooks: WebhookRecord[] } {
  if (text(spec.title)) product.title = text(spec.title)!;
  if (spec.status !== undefined) {
    if (!STATUSES.includes(spec.status as Product["status"])) throw new ProductSpecError(`status must be one of ${STATUSES.join(", ")}.`);
    product.status = spec.status as Product["status"];
  }
  const first = product.variants[0];
  if (first && spec.price !== undefined) first.price = Number(spec.price).toFixed(2);
  if (first && spec.inventory_quantity !== undefined) first.inventoryQuantity = Number(spec.inventory_quantity);
  if (first && spec.sku !== undefined) first.sku = text(spec.sku);
  product.updatedAt = ctx.options.now();
  ctx.state.changed();
  const payload = productPayload(product);
  return { product: payload, webhooks: emit(ctx, shop, "products/update", payload) };
}

/** A product deleted: products/delete carries its id only, as Shopify's does. */
export function deleteProduct(ctx: ShopifyContext, shop: Shop, product: Product) {
  ctx.state.products.delete(product.id);
  ctx.state.changed();
  return { webhooks: emit(ctx, shop, "products/delete", { id: product.id }) };
}

/** The REST shape products/* webhooks carry. */
export function productPayload(product: Product) {
  return {
    id: product.id,
    admin_graphql_api_id: gid("Product", product.id),
    title: product.title,
    body_html: product.description ? `<p>${product.description}</p>` : "",
    status: product.status,
    created_at: iso(product.createdAt),
    updated_at: iso(product.updatedAt),
    image: product.imageUrl ? { src: product.imageUrl } : null,
    variants: product.variants.map((v) => ({
      id: v.id,
      product_id: product.id,
      admin_graphql_api_id: gid("ProductVariant", v.id),
      title: v.title,
      sku: v.sku ?? "",
      price: v.price,
      inventory_quantity: v.inventoryQuantity,
      inventory_policy: "deny",
    })),
  };
}

/** A product as GraphQL answers it (the fields an app selects are projected from this). */
export function productNode(product: Product) {
  const image = (url: string | null) => (url ? { __typename: "Image", url, altText: null } : null);
  const variants = product.variants.map((v) => ({
    __typename: "ProductVariant",
    id: gid("ProductVariant", v.id),
    title: v.title,
    sku: v.sku ?? "",
    price: v.price,
    inventoryQuantity: v.inventoryQuantity,
    availableForSale: product.status === "active" && v.inventoryQuantity > 0,
    image: image(v.imageUrl),
  }));
  return {
    __typename: "Product",
    id: gid("Product", product.id),
    legacyResourceId: String(product.id),
    title: product.title,
    description: product.description,
    descriptionHtml: product.description ? `<p>${product.description}</p>` : "",
    status: product.status.toUpperCase(),
    totalInventory: product.variants.reduce((sum, v) => sum + v.inventoryQuantity, 0),
    featuredImage: image(product.imageUrl),
    updatedAt: new Date(product.updatedAt).toISOString(),
    variants: { __typename: "ProductVariantConnection", nodes: variants, edges: variants.map((node) => ({ node, cursor: node.id })) },
  };
}
