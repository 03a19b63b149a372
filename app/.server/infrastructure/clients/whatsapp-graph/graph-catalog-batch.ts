import type { GraphCaller } from "./graph-call";
import type { GraphProductFields } from "./graph-catalogs";

/**
 * The Catalog API's batch (reference commerce §1.4, decision 141): many product items changed in one
 * call (`POST /{catalog-id}/items_batch`), in the feed's vocabulary (`id` is the retailer id, `title`,
 * `price` as "1500.00 KES", `image_link`), answered by a handle whose outcome, per item, is read
 * later (`GET /{catalog-id}/check_batch_request_status`).
 */

/** At most this many requests in one batch (Meta's stated limit for catalog batches). */
export const CATALOG_BATCH_MAX = 5000;

export type CatalogBatchRequest = { method: "UPDATE"; product: GraphProductFields } | { method: "DELETE"; retailerId: string };

export interface CatalogBatchStatus {
  finished: boolean;
  /** The items Meta refused, by retailer id, with its words. */
  errors: { retailerId: string; message: string }[];
}

/** Cents in the feed's price: "1500.00 KES". */
const feedPrice = (cents: number, currency: string) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")} ${currency}`;

const feedItem = (request: CatalogBatchRequest) =>
  request.method === "DELETE"
    ? { method: "DELETE", data: { id: request.retailerId } }
    : {
        method: "UPDATE",
        data: {
          id: request.product.retailerId,
          title: request.product.name,
          description: request.product.description || request.product.name,
          price: feedPrice(request.product.priceCents, request.product.currency),
          availability: request.product.availability,
          condition: "new",
          ...(request.product.imageUrl ? { image_link: request.product.imageUrl } : {}),
        },
      };

export function catalogBatchCalls(graph: GraphCaller) {
  return {
    /** Sends up to CATALOG_BATCH_MAX changes (UPDATE creates what is missing: allow_upsert); answers Meta's handle. */
    async itemsBatch(catalogId: string, requests: CatalogBatchRequest[], token: string): Promise<string> {
      const answer = await graph.call<{ handles?: string[] }>({
        step: "catalog.batch",
        method: "POST",
        path: `${encodeURIComponent(catalogId)}/items_batch`,
        body: { item_type: "PRODUCT_ITEM", allow_upsert: true, requests: requests.map(feedItem) },
        token,
        idempotent: true,
      });
      const handle = answer.handles?.[0];
      if (!handle) throw new Error("Graph items_batch answered no handle");
      return String(handle);
    },

    async batchStatus(catalogId: string, handle: string, token: string): Promise<CatalogBatchStatus> {
      const answer = await graph.call<{ data?: { status?: string; errors?: { id?: string; message?: string }[] }[] }>({
        step: "catalog.batch",
        method: "GET",
        path: `${encodeURIComponent(catalogId)}/check_batch_request_status`,
        query: { handle },
        token,
        idempotent: true,
      });
      const status = answer.data?.[0];
      return {
        finished: status?.status === "finished",
        errors: (status?.errors ?? []).map((e) => ({ retailerId: String(e.id ?? ""), message: String(e.message ?? "").slice(0, 500) })),
      };
    },
  };
}
