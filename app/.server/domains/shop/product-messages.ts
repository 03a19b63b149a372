import { and, asc, eq, ilike, inArray, isNotNull, isNull, notInArray, or, sql, type SQL } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { isUuid } from "../../infrastructure/db/keyset";
import { products } from "../../infrastructure/db/schema";
import { isRefusal } from "../../infrastructure/refusal";
import type { InteractiveProducts } from "../messaging";
import { likePattern } from "../search";
import { catalogIdOf } from "./catalog";
import { listProducts, refuseShop } from "./products";
import { m } from "~/paraglide/messages";

/**
 * The product messages an agent sends from the inbox (reference commerce §1.5): one product, a list
 * of up to 30, or the catalogue's button. Only products Meta's catalog holds (synced) can be named:
 * Meta refuses a message naming any other.
 */

export const PRODUCT_MESSAGE_KINDS = ["product", "product_list", "catalog_message"] as const;
export type ProductMessageKind = (typeof PRODUCT_MESSAGE_KINDS)[number];
export const PRODUCT_LIST_MAX = 30;
const HEADER_MAX = 60;
const BODY_MAX = 1024;

export interface ProductMessageRequest {
  kind: string;
  productIds: string[];
  header: string;
  body: string;
}

/** The products the automations' forms offer: those the catalog holds now. */
export async function sendableProducts(organizationId: string) {
  const all = await listProducts(organizationId);
  return all
    .filter((p) => p.syncState === "synced" && p.metaProductId)
    .map((p) => ({ id: p.id, name: p.name, retailerId: p.retailerId, priceCents: p.priceCents, availability: p.availability }));
}

/** The most products the inbox's picker lists at once: a shop of 2,000 would weigh a page down on 3G. */
export const PICKER_SHOWN = 50;
/** The most ticked boxes read from one post: more than a list may send, so "too many" is still said. */
const CHOSEN_READ_MAX = PRODUCT_LIST_MAX * 2;

const sendableColumns = {
  id: products.id,
  name: products.name,
  retailerId: products.retailerId,
  priceCents: products.priceCents,
  availability: products.availability,
};
const sendableWhere = (organizationId: string, ...more: (SQL | undefined)[]) =>
  and(
    eq(products.organizationId, organizationId),
    isNull(products.removedAt),
    eq(products.syncState, "synced"),
    isNotNull(products.metaProductId),
    ...more,
  );

/** Of `ids`, the products the catalog holds now (unknown, foreign, removed and unsynced ids are left out), by name. */
export async function sendableByIds(organizationId: string, ids: readonly string[]) {
  const valid = [...new Set(ids.filter(isUuid))].slice(0, CHOSEN_READ_MAX);
  if (!valid.length) return [];
  return db()
    .select(sendableColumns)
    .from(products)
    .where(sendableWhere(organizationId, inArray(products.id, valid)))
    .orderBy(asc(products.name), asc(products.retailerId));
}

/**
 * What the inbox's product picker lists: the products already ticked first, then up to PICKER_SHOWN
 * others matching the search (by name or SKU), and how many others match in all (one statement:
 * the count is the window's, before the limit).
 */
export async function pickerProducts(organizationId: string, picker: { query: string; chosenIds: readonly string[] }) {
  const query = picker.query.trim().slice(0, 100);
  const chosen = await sendableByIds(organizationId, picker.chosenIds);
  const pattern = likePattern(query);
  const matches = await db()
    .select({ ...sendableColumns, matching: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(products)
    .where(
      sendableWhere(
        organizationId,
        query ? or(ilike(products.name, pattern), ilike(products.retailerId, pattern)) : undefined,
        chosen.length
          ? notInArray(
              products.id,
              chosen.map((p) => p.id),
            )
          : undefined,
      ),
    )
    .orderBy(asc(products.name), asc(products.retailerId))
    .limit(PICKER_SHOWN);
  const others = matches.map(({ matching: _, ...product }) => product);
  return { products: [...chosen, ...others], chosen: chosen.map((p) => p.id), total: chosen.length + (matches[0]?.matching ?? 0), query };
}

/** The message for the request, checked: refusals name the composer's field. */
export async function productMessage(organizationId: string, request: ProductMessageRequest): Promise<InteractiveProducts> {
  const kind = PRODUCT_MESSAGE_KINDS.find((k) => k === request.kind);
  if (!kind) throw refuseShop(400, m.shop_send_choose_kind(), "productKind");
  const [catalogId, chosen] = await Promise.all([catalogIdOf(organizationId), sendableByIds(organizationId, request.productIds)]);
  if (!catalogId) throw refuseShop(409, m.shop_send_no_catalog(), "productKind");
  const body = request.body.trim();
  const header = request.header.trim();
  if (body.length > BODY_MAX) throw refuseShop(400, m.shop_send_body_too_long({ max: BODY_MAX }), "productBody");
  const summary = (names: string[]) => m.shop_send_summary({ names: names.join(", ") }).slice(0, 4096);
  switch (kind) {
    case "product": {
      if (chosen.length !== 1) throw refuseShop(400, m.shop_send_choose_one(), "products");
      const [one] = chosen;
      return { type: "product", catalogId, retailerId: one!.retailerId, body, summary: summary([one!.name]) };
    }
    case "product_list": {
      if (!chosen.length) throw refuseShop(400, m.shop_send_choose_some(), "products");
      if (chosen.length > PRODUCT_LIST_MAX) throw refuseShop(400, m.shop_send_too_many({ max: PRODUCT_LIST_MAX }), "products");
      if (!header) throw refuseShop(400, m.shop_send_header_required(), "productHeader");
      if (header.length > HEADER_MAX) throw refuseShop(400, m.shop_send_header_too_long({ max: HEADER_MAX }), "productHeader");
      if (!body) throw refuseShop(400, m.shop_send_body_required(), "productBody");
      return {
        type: "product_list",
        catalogId,
        header,
        body,
        sections: [{ title: m.shop_send_section_title().slice(0, 24), retailerIds: chosen.map((p) => p.retailerId) }],
        summary: summary(chosen.map((p) => p.name)),
      };
    }
    default: {
      if (!body) throw refuseShop(400, m.shop_send_body_required(), "productBody");
      const thumbnail = chosen[0] ?? (await firstSendable(organizationId));
      return { type: "catalog_message", body, thumbnailRetailerId: thumbnail?.retailerId, summary: m.shop_send_catalog_summary() };
    }
  }
}

/**
 * A product message an automation will send later (a flow's `products` step, a rule's "Send
 * products", decision 143), checked when it is saved: every product named must be one the catalog
 * holds now (another organisation's, an unknown or an unsynced one is refused at `products`), and
 * the message must be one `productMessage` would send.
 */
export async function checkProductChoice(organizationId: string, request: ProductMessageRequest): Promise<void> {
  const offered = new Set((await sendableByIds(organizationId, request.productIds)).map((p) => p.id));
  if (request.productIds.some((id) => !offered.has(id))) throw refuseShop(400, m.shop_send_not_sendable(), "products");
  await productMessage(organizationId, request);
}

/**
 * The message an automation sends when it runs (decision 143): the products the catalog no longer
 * holds are left out; null when nothing is left to send (its one product gone, every listed one gone,
 * no catalog any more), and the automation goes on without it.
 */
export async function productMessageIfSendable(
  organizationId: string,
  request: ProductMessageRequest,
): Promise<InteractiveProducts | null> {
  try {
    return await productMessage(organizationId, request);
  } catch (error) {
    if (isRefusal(error, "shop")) return null;
    throw error;
  }
}

/** The catalogue message's picture when no product was chosen: the first product by name. */
async function firstSendable(organizationId: string) {
  const [first] = await db()
    .select(sendableColumns)
    .from(products)
    .where(sendableWhere(organizationId))
    .orderBy(asc(products.name), asc(products.retailerId))
    .limit(1);
  return first;
}
