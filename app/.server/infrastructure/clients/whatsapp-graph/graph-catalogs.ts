import type { GraphCaller } from "./graph-call";

/**
 * Commerce catalogs (reference commerce §1.2–1.4): a business's catalog, its connection to the
 * WABA, a number's commerce settings, and product items by the /products edge. Prices are minor
 * units (cents), as the Catalog API takes them.
 */

export interface GraphProductFields {
  retailerId: string;
  name: string;
  description: string;
  priceCents: number;
  currency: string;
  imageUrl: string | null;
  availability: string;
}

export interface GraphCatalogProduct {
  id: string;
  retailerId: string;
}

const productBody = (p: GraphProductFields, withRetailerId: boolean) => ({
  ...(withRetailerId ? { retailer_id: p.retailerId } : {}),
  name: p.name,
  description: p.description || p.name,
  price: p.priceCents,
  currency: p.currency,
  ...(p.imageUrl ? { image_url: p.imageUrl } : {}),
  availability: p.availability,
});

export function catalogCalls(graph: GraphCaller) {
  return {
    /** The business that owns the WABA (its catalogs are made there), or null when Meta does not say. */
    async wabaOwnerBusiness(wabaId: string, token: string): Promise<string | null> {
      const answer = await graph.call<{ owner_business_info?: { id?: string } }>({
        step: "waba",
        method: "GET",
        path: encodeURIComponent(wabaId),
        query: { fields: "owner_business_info" },
        token,
        idempotent: true,
      });
      return answer.owner_business_info?.id ? String(answer.owner_business_info.id) : null;
    },

    async createCatalog(businessId: string, name: string, token: string): Promise<string> {
      const answer = await graph.call<{ id: string }>({
        step: "catalog.create",
        method: "POST",
        path: `${encodeURIComponent(businessId)}/owned_product_catalogs`,
        body: { name, vertical: "commerce" },
        token,
        idempotent: false,
      });
      return String(answer.id);
    },

    async connectCatalog(wabaId: string, catalogId: string, token: string) {
      await graph.call<{ success?: boolean }>({
        step: "catalog.connect",
        method: "POST",
        path: `${encodeURIComponent(wabaId)}/product_catalogs`,
        body: { catalog_id: catalogId },
        token,
        idempotent: true,
      });
    },

    async connectedCatalogs(wabaId: string, token: string): Promise<string[]> {
      const answer = await graph.call<{ data?: { id: string }[] }>({
        step: "catalog.connect",
        method: "GET",
        path: `${encodeURIComponent(wabaId)}/product_catalogs`,
        token,
        idempotent: true,
      });
      return (answer.data ?? []).map((c) => String(c.id));
    },

    /** Cart on and the shop icon shown in the chat header (Meta's default hides it). */
    async enableCommerce(phoneNumberId: string, token: string) {
      await graph.call<{ success?: boolean }>({
        step: "commerce_settings",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/whatsapp_commerce_settings`,
        query: { is_cart_enabled: "true", is_catalog_visible: "true" },
        token,
        idempotent: true,
      });
    },
  };
}

/** Product items: created on the catalog's /products edge, then changed and deleted by their own id. */
export function productCalls(graph: GraphCaller) {
  return {
    async createProduct(catalogId: string, product: GraphProductFields, token: string): Promise<string> {
      const answer = await graph.call<{ id: string }>({
        step: "catalog.product",
        method: "POST",
        path: `${encodeURIComponent(catalogId)}/products`,
        body: productBody(product, true),
        token,
        idempotent: false,
      });
      return String(answer.id);
    },

    async updateProduct(productItemId: string, product: GraphProductFields, token: string) {
      await graph.call<{ success?: boolean }>({
        step: "catalog.product",
        method: "POST",
        path: encodeURIComponent(productItemId),
        body: productBody(product, false),
        token,
        idempotent: true,
      });
    },

    async deleteProduct(productItemId: string, token: string) {
      await graph.call<{ success?: boolean }>({
        step: "catalog.product",
        method: "DELETE",
        path: encodeURIComponent(productItemId),
        token,
        idempotent: true,
      });
    },

    async listProducts(catalogId: string, token: string): Promise<GraphCatalogProduct[]> {
      const answer = await graph.call<{ data?: { id: string; retailer_id: string }[] }>({
        step: "catalog.product",
        method: "GET",
        path: `${encodeURIComponent(catalogId)}/products`,
        query: { fields: "id,retailer_id", limit: "1000" },
        token,
        idempotent: true,
      });
      return (answer.data ?? []).map((p) => ({ id: String(p.id), retailerId: String(p.retailer_id) }));
    },
  };
}
