import type { Request } from "express";
import { fail, ok, param, rawParam, unsupported, type GraphResult } from "./graph-common";
import { checkProductSections, missing, notValid } from "./message-rules";
import type { Catalog, CatalogProduct, CommerceSettings, PhoneNumber, SandboxStore, Waba } from "./state";

/**
 * The Catalog API as Meta answers it (reference commerce §1.2–1.4): a business's catalogs
 * (`/{business-id}/owned_product_catalogs`), their connection to a WABA (`/{waba-id}/product_catalogs`),
 * a number's `whatsapp_commerce_settings`, and product items (`/{catalog-id}/products`,
 * `/{product-item-id}`). Product messages are checked against the catalog here too.
 */

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);

const invalid = (message: string) => fail(400, 100, `(#100) ${message}`);

export const AVAILABILITIES = ["in stock", "out of stock", "available for order", "discontinued", "preorder"];

/** POST /{business-id}/owned_product_catalogs: name (required), vertical (commerce by default). */
export function createCatalog(store: SandboxStore, req: Request, businessId: string): GraphResult {
  const name = param(req, "name")?.trim();
  if (!name) return invalid("The parameter name is required");
  const vertical = param(req, "vertical") ?? "commerce";
  if (vertical !== "commerce")
    return invalid(`Param vertical must be one of {commerce} for a WhatsApp catalog - got "${vertical.slice(0, 40)}".`);
  const catalog: Catalog = {
    id: store.newObjectId(),
    businessId,
    name: name.slice(0, 200),
    vertical,
    wabaIds: [],
    products: [],
    createdAt: Date.now(),
  };
  store.catalogs.set(catalog.id, catalog);
  store.changed();
  return ok({ id: catalog.id });
}

/** GET/POST/DELETE /{waba-id}/product_catalogs: the catalogs connected to the WABA; catalog_id on POST and DELETE. */
export function wabaCatalogs(store: SandboxStore, req: Request, method: string, waba: Waba): GraphResult {
  if (method === "GET")
    return ok({
      data: [...store.catalogs.values()].filter((c) => c.wabaIds.includes(waba.id)).map((c) => ({ id: c.id, name: c.name })),
    });
  const catalogId = param(req, "catalog_id");
  if (!catalogId) return invalid("The parameter catalog_id is required");
  const catalog = store.catalogs.get(catalogId);
  if (!catalog || catalog.businessId !== waba.businessId) return unsupported(method, catalogId);
  if (method === "POST") {
    // One catalog per WhatsApp Business Account: connecting another replaces it.
    for (const other of store.catalogs.values()) other.wabaIds = other.wabaIds.filter((id) => id !== waba.id);
    catalog.wabaIds.push(waba.id);
  } else catalog.wabaIds = catalog.wabaIds.filter((id) => id !== waba.id);
  store.changed();
  return ok({ success: true });
}

/** GET/POST /{phone-number-id}/whatsapp_commerce_settings; POST takes query strings "true"/"false". */
export function commerceSettings(store: SandboxStore, req: Request, method: string, phone: PhoneNumber): GraphResult {
  const current: CommerceSettings = store.commerceSettings.get(phone.id) ?? {
    phoneNumberId: phone.id,
    id: store.newObjectId(),
    isCartEnabled: true,
    isCatalogVisible: false,
  };
  if (method === "GET")
    return ok({ data: [{ id: current.id, is_cart_enabled: current.isCartEnabled, is_catalog_visible: current.isCatalogVisible }] });
  const flag = (name: string): boolean | undefined | GraphResult => {
    const value = (req.query as Obj)[name];
    if (value === undefined) return undefined;
    if (value === "true" || value === "false") return value === "true";
    return invalid(`Param ${name} must be a boolean`);
  };
  const cart = flag("is_cart_enabled");
  const visible = flag("is_catalog_visible");
  if (typeof cart === "object") return cart;
  if (typeof visible === "object") return visible;
  if (cart === undefined && visible === undefined) return invalid("Either is_cart_enabled or is_catalog_visible is required");
  store.commerceSettings.set(phone.id, {
    ...current,
    ...(cart !== undefined ? { isCartEnabled: cart } : {}),
    ...(visible !== undefined ? { isCatalogVisible: visible } : {}),
  });
  store.changed();
  return ok({ success: true });
}

/** The product fields of a create (all required but url) or an update (any), checked as Meta checks them. */
function productFields(req: Request, creating: boolean): Partial<CatalogProduct> | GraphResult {
  const out: Partial<CatalogProduct> = {};
  const text = (name: string, limit: number): string | undefined | GraphResult => {
    const value = param(req, name);
    if (value === undefined)
      return creating && name !== "url" && name !== "description" ? invalid(`The parameter ${name} is required`) : undefined;
    if (value.length > limit) return invalid(`Param ${name} must be at most ${limit} characters long`);
    return value;
  };
  for (const [name, key, limit] of [
    ["retailer_id", "retailerId", 100],
    ["name", "name", 200],
    ["description", "description", 9999],
    ["image_url", "imageUrl", 2000],
    ["url", "url", 2000],
  ] as const) {
    const value = text(name, limit);
    if (typeof value === "object") return value;
    if (value !== undefined) out[key] = value;
  }
  if (creating && !out.name?.trim()) return invalid("The parameter name is required");
  if (out.imageUrl !== undefined && !/^https?:\/\/[^\s/]+/i.test(out.imageUrl)) return invalid("Param image_url must be a valid URL");
  const price = rawParam(req, "price");
  if (price !== undefined) {
    const cents = typeof price === "number" ? price : typeof price === "string" && /^\d+$/.test(price.trim()) ? Number(price) : NaN;
    if (!Number.isSafeInteger(cents) || cents < 0) return invalid("Param price must be a positive integer (the price in minor units)");
    out.price = cents;
  } else if (creating) return invalid("The parameter price is required");
  const currency = param(req, "currency");
  if (currency !== undefined) {
    if (!/^[A-Z]{3}$/.test(currency)) return invalid(`Param currency must be an ISO 4217 currency code - got "${currency.slice(0, 10)}".`);
    out.currency = currency;
  } else if (creating) return invalid("The parameter currency is required");
  const availability = param(req, "availability");
  if (availability !== undefined) {
    if (!AVAILABILITIES.includes(availability))
      return invalid(`Param availability must be one of {${AVAILABILITIES.join(", ")}} - got "${availability.slice(0, 40)}".`);
    out.availability = availability;
  }
  return out;
}

const productNode = (p: CatalogProduct) => ({
  id: p.id,
  retailer_id: p.retailerId,
  name: p.name,
  description: p.description,
  price: `${(p.price / 100).toFixed(2)} ${p.currency}`,
  currency: p.currency,
  image_url: p.imageUrl,
  availability: p.availability,
  ...(p.url ? { url: p.url } : {}),
});

/** GET/POST /{catalog-id}/products: list, or create one product item (a retailer_id already there is refused). */
export function catalogProducts(store: SandboxStore, req: Request, method: string, catalog: Catalog): GraphResult {
  if (method === "GET") {
    const retailerId = param(req, "retailer_id");
    return ok({ data: catalog.products.filter((p) => !retailerId || p.retailerId === retailerId).map(productNode) });
  }
  const fields = productFields(req, true);
  if ("status" in fields) return fields;
  if (catalog.products.some((p) => p.retailerId === fields.retailerId))
    return fail(400, 10800, `(#10800) Duplicate retailer_id when attempting to create a store collection: ${fields.retailerId}`, {
      type: "OAuthException",
    });
  const product: CatalogProduct = {
    id: store.newObjectId(),
    retailerId: fields.retailerId!,
    name: fields.name!,
    description: fields.description ?? "",
    price: fields.price!,
    currency: fields.currency!,
    imageUrl: fields.imageUrl!,
    availability: fields.availability ?? "in stock",
    ...(fields.url ? { url: fields.url } : {}),
  };
  catalog.products.push(product);
  store.changed();
  return ok({ id: product.id });
}

/** The catalog holding a product item id, with the item. */
export function findProduct(store: SandboxStore, id: string): { catalog: Catalog; product: CatalogProduct } | undefined {
  for (const catalog of store.catalogs.values()) {
    const product = catalog.products.find((p) => p.id === id);
    if (product) return { catalog, product };
  }
  return undefined;
}

/** GET, POST (update) or DELETE /{product-item-id}. */
export function productItem(store: SandboxStore, req: Request, method: string, found: { catalog: Catalog; product: CatalogProduct }) {
  const { catalog, product } = found;
  if (method === "GET") return ok(productNode(product));
  if (method === "DELETE") {
    catalog.products = catalog.products.filter((p) => p.id !== product.id);
    store.changed();
    return ok({ success: true });
  }
  const fields = productFields(req, false);
  if ("status" in fields) return fields;
  if (fields.retailerId !== undefined && fields.retailerId !== product.retailerId)
    return invalid("Param retailer_id cannot be changed on an existing product item");
  Object.assign(product, fields);
  store.changed();
  return ok({ success: true });
}

// ---- product messages --------------------------------------------------------------------------

const PRODUCT_KINDS = ["product", "product_list", "catalog_message"];
export const isProductMessage = (kind: unknown) => typeof kind === "string" && PRODUCT_KINDS.includes(kind);

/** The product_retailer_ids a product or product_list message names, in order. */
function retailerIdsOf(action: Obj, kind: unknown): unknown[] {
  if (kind === "product") return [action.product_retailer_id];
  const sections = Array.isArray(action.sections) ? action.sections : [];
  return sections.flatMap((s) =>
    isObject(s) && Array.isArray(s.product_items) ? s.product_items.map((i) => (isObject(i) ? i.product_retailer_id : undefined)) : [],
  );
}

/** The catalog connected to the WABA, if any. */
export const catalogOfWaba = (store: SandboxStore, wabaId: string) => [...store.catalogs.values()].find((c) => c.wabaIds.includes(wabaId));

/**
 * A product, product_list or catalog_message must name the catalog connected to the number's WABA
 * (catalog_message uses it implicitly) and products that catalog holds: else 131009, as Meta.
 */
export function checkProductMessage(store: SandboxStore, phone: PhoneNumber, interactive: Obj): GraphResult | undefined {
  const action = isObject(interactive.action) ? interactive.action : {};
  const connected = catalogOfWaba(store, phone.wabaId);
  if (!connected) return notValid("No catalog is connected to this WhatsApp Business Account.");
  if (interactive.type !== "catalog_message") {
    if (action.catalog_id !== connected.id)
      return notValid(`Catalog ${String(action.catalog_id ?? "").slice(0, 40)} is not connected to this WhatsApp Business Account.`);
  }
  const thumbnail = isObject(action.parameters) ? action.parameters.thumbnail_product_retailer_id : undefined;
  const ids =
    interactive.type === "catalog_message" ? (thumbnail === undefined ? [] : [thumbnail]) : retailerIdsOf(action, interactive.type);
  for (const id of ids) {
    if (typeof id !== "string" || !id) return missing("product_retailer_id");
    if (!connected.products.some((p) => p.retailerId === id))
      return notValid(`Product with retailer id ${id.slice(0, 100)} does not exist in catalog ${connected.id}.`);
  }
  return undefined;
}

/**
 * A catalog or multi-product template's button parameter (`sub_type` CATALOG or MPM, one parameter
 * of type "action"): the thumbnail product, and for MPM the sections (1 to 10, 30 products in all);
 * every retailer id must be in the catalog connected to the number's WABA, else 131009 as Meta.
 */
export function checkProductTemplateButton(
  store: SandboxStore,
  phone: PhoneNumber,
  subType: "catalog" | "mpm",
  given: Obj,
): GraphResult | undefined {
  const [param] = Array.isArray(given.parameters) ? (given.parameters as unknown[]) : [];
  if (!isObject(param) || param.type !== "action" || !isObject(param.action)) return missing("components[button].parameters[0].action");
  const action = param.action;
  const where = "components[button].parameters[0].action";
  if (typeof action.thumbnail_product_retailer_id !== "string" || !action.thumbnail_product_retailer_id)
    return missing(`${where}.thumbnail_product_retailer_id`);
  if (subType === "mpm") {
    const shape = checkProductSections(action, where);
    if (shape) return shape;
  } else if (action.sections !== undefined) return notValid("A catalog template's button takes a thumbnail product, not sections.");
  const connected = catalogOfWaba(store, phone.wabaId);
  if (!connected) return notValid("No catalog is connected to this WhatsApp Business Account.");
  const ids = [action.thumbnail_product_retailer_id, ...(subType === "mpm" ? retailerIdsOf(action, "product_list") : [])];
  const unknown = ids.find((id) => !connected.products.some((p) => p.retailerId === id));
  if (unknown !== undefined)
    return notValid(`Product with retailer id ${String(unknown).slice(0, 100)} does not exist in catalog ${connected.id}.`);
  return undefined;
}

/** The products a sent product message shows, from the catalog connected to its WABA (the console's cart). */
export function productsShown(
  store: SandboxStore,
  wabaId: string,
  interactive: Obj,
): { catalog: Catalog; products: CatalogProduct[] } | undefined {
  const catalog = catalogOfWaba(store, wabaId);
  if (!catalog) return undefined;
  const action = isObject(interactive.action) ? interactive.action : {};
  const ids = interactive.type === "catalog_message" ? catalog.products.map((p) => p.retailerId) : retailerIdsOf(action, interactive.type);
  const products = ids.flatMap((id) => catalog.products.filter((p) => p.retailerId === id));
  return { catalog, products };
}
