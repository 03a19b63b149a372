import { rawQuery } from "../../infrastructure/db/client";
import { SECTION_TITLE_MAX, TEMPLATE_PRODUCTS_MAX, TEMPLATE_SECTIONS_MAX } from "../messaging";
import type { PreparedTemplate, TemplateProducts } from "../messaging";
import type { CampaignProducts } from "../../infrastructure/db/schema/campaigns";
import { refuseCampaign } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * A campaign's products for a catalog or multi-product template (decision 146): chosen from the
 * organisation's shop (products synced to its Meta catalog), checked when the campaign is saved, and
 * read again when its messages are written, leaving out a product removed meanwhile.
 */

const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Of `ids`, the shop's products a message can show: those synced to the organisation's Meta catalog,
 * not removed (what the shop domain's `sendableByIds` answers; read here, as the shop's index would make
 * the domains a circle). Only the products named are read, never the whole catalogue.
 */
function sendableByIds(organizationId: string, ids: readonly string[]) {
  const valid = [...new Set(ids.filter((id) => UUID_LIKE.test(id)))];
  if (!valid.length) return Promise.resolve([]);
  return rawQuery<{ id: string; retailerId: string }>(
    `select id, retailer_id as "retailerId" from products
     where organization_id = $1 and id = any($2::uuid[]) and removed_at is null and sync_state = 'synced' and meta_product_id is not null`,
    [organizationId, valid],
  );
}

/** The products a campaign's values name: the thumbnail and every section's, once each. */
export function chosenProductIds(products: CampaignProducts | undefined): string[] {
  if (!products) return [];
  return [...new Set([products.thumbnail, ...(products.sections ?? []).flatMap((s) => s.productIds ?? [])].map(String).filter(Boolean))];
}

const refuseProducts = (message: string) => refuseCampaign(422, "invalid_parameters", message, "parameters");

/** The sections as given, tidied: titles trimmed, each product once, sections without products dropped. */
function tidySections(sections: CampaignProducts["sections"]) {
  return (sections ?? [])
    .map((s) => ({ title: String(s?.title ?? "").trim(), productIds: [...new Set((s?.productIds ?? []).map(String).filter(Boolean))] }))
    .filter((s) => s.productIds.length > 0);
}

function checkSections(sections: { title: string; productIds: string[] }[]) {
  if (!sections.length) throw refuseProducts(m.messaging_campaign_products_sections_required());
  if (sections.length > TEMPLATE_SECTIONS_MAX)
    throw refuseProducts(m.messaging_campaign_products_sections_max({ max: TEMPLATE_SECTIONS_MAX }));
  if (sections.some((s) => [...s.title].length > SECTION_TITLE_MAX))
    throw refuseProducts(m.messaging_campaign_products_title_long({ max: SECTION_TITLE_MAX }));
  if (sections.length > 1 && sections.some((s) => !s.title)) throw refuseProducts(m.messaging_campaign_products_title_required());
  const count = sections.reduce((sum, s) => sum + s.productIds.length, 0);
  if (count > TEMPLATE_PRODUCTS_MAX) throw refuseProducts(m.messaging_campaign_products_max({ max: TEMPLATE_PRODUCTS_MAX, count }));
}

/** The products given fit the template and (unless `stored`) the shop's catalogue now; what is stored. */
export async function checkCampaignProducts(
  organizationId: string,
  template: PreparedTemplate,
  given: CampaignProducts | undefined,
  options: { stored?: boolean } = {},
): Promise<CampaignProducts | undefined> {
  const thumbnail = String(given?.thumbnail ?? "").trim();
  const sections = tidySections(given?.sections);
  if (!template.productButton) {
    if (thumbnail || sections.length) throw refuseProducts(m.messaging_campaign_products_not_taken({ template: template.name }));
    return undefined;
  }
  if (!thumbnail) throw refuseProducts(m.messaging_campaign_products_thumbnail_required());
  if (template.productButton === "MPM") checkSections(sections);
  const kept = template.productButton === "MPM" ? { thumbnail, sections } : { thumbnail };
  // A saved campaign starting: a product removed since is left out when the messages are written.
  if (options.stored) return kept;
  const ids = [thumbnail, ...sections.flatMap((s) => s.productIds)];
  const offered = new Set((await sendableByIds(organizationId, ids)).map((p) => p.id));
  if (ids.some((id) => !offered.has(id))) throw refuseProducts(m.messaging_campaign_products_unknown());
  return kept;
}

/**
 * The products as the messages name them now (retailer ids of products still in the catalogue), or
 * null when none is left (the recipients are left out: no_products); undefined without products.
 */
export async function productsAtSend(
  organizationId: string,
  template: PreparedTemplate,
  products: CampaignProducts | undefined,
): Promise<TemplateProducts | null | undefined> {
  if (!template.productButton || !products) return undefined;
  const retailerIds = new Map((await sendableByIds(organizationId, chosenProductIds(products))).map((p) => [p.id, p.retailerId]));
  const sections = (products.sections ?? [])
    .map((s) => ({ title: s.title, retailerIds: s.productIds.flatMap((id) => retailerIds.get(id) ?? []) }))
    .filter((s) => s.retailerIds.length > 0);
  const thumbnail = retailerIds.get(products.thumbnail) ?? sections[0]?.retailerIds[0];
  if (!thumbnail || (template.productButton === "MPM" && !sections.length)) return null;
  // One section left needs no title; several keep theirs.
  return template.productButton === "MPM" ? { thumbnailRetailerId: thumbnail, sections } : { thumbnailRetailerId: thumbnail };
}

/** A product a campaign shows, as its Review step and its page list it. */
export interface CampaignProductShown {
  id: string;
  name: string;
  retailerId: string;
  priceCents: number;
  /** The section it is listed in (a multi-product template with titled sections), or null. */
  section: string | null;
  /** The product whose picture the message shows. */
  thumbnail: boolean;
}

/**
 * A campaign's products with their name, SKU and price, in the order the message shows them (the
 * thumbnail first, then each section's). A product removed from the shop since is not listed.
 */
export async function campaignProductsShown(
  organizationId: string,
  products: CampaignProducts | undefined,
): Promise<CampaignProductShown[]> {
  if (!products) return [];
  const placed = [
    { id: products.thumbnail, section: null as string | null, thumbnail: true },
    ...(products.sections ?? []).flatMap((s) => s.productIds.map((id) => ({ id, section: s.title || null, thumbnail: false }))),
  ];
  const ids = [...new Set(placed.map((p) => p.id).filter((id) => UUID_LIKE.test(id)))];
  if (!ids.length) return [];
  const rows = await rawQuery<{ id: string; name: string; retailerId: string; priceCents: number }>(
    `select id, name, retailer_id as "retailerId", price_cents::float8 as "priceCents" from products
     where organization_id = $1 and id = any($2::uuid[])`,
    [organizationId, ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  // The thumbnail listed once: marked where a section names it too.
  const inSections = new Set(placed.filter((p) => !p.thumbnail).map((p) => p.id));
  return placed
    .filter((p) => byId.has(p.id) && !(p.thumbnail && inSections.has(p.id)))
    .map((p) => ({ ...byId.get(p.id)!, section: p.section, thumbnail: p.thumbnail || p.id === products.thumbnail }));
}
