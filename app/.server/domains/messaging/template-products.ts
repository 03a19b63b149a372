import { refuse } from "./refusals";
import type { TemplateProducts } from "./content";
import { m } from "~/paraglide/messages";

/**
 * Catalog and multi-product (MPM) templates' products at send time (decision 146): Meta's button
 * component `sub_type` CATALOG or MPM with one `action` parameter, the thumbnail product and, for an
 * MPM, the sections of products shown (1 to 10 sections, 30 products in all).
 */

export const TEMPLATE_SECTIONS_MAX = 10;
export const TEMPLATE_PRODUCTS_MAX = 30;
export const SECTION_TITLE_MAX = 24;

export type ProductButtonKind = "CATALOG" | "MPM";

/** The template's product button (its position and kind), if it has one. */
export function productButtonOf(components: Record<string, unknown>[]): { index: number; kind: ProductButtonKind } | null {
  const part = components.find((c) => String(c.type).toUpperCase() === "BUTTONS");
  const buttons = Array.isArray(part?.buttons) ? (part.buttons as Record<string, unknown>[]) : [];
  const index = buttons.findIndex((b) => ["CATALOG", "MPM"].includes(String(b?.type).toUpperCase()));
  return index < 0 ? null : { index, kind: String(buttons[index]!.type).toUpperCase() as ProductButtonKind };
}

const mismatch = (message: string) => refuse(422, "parameter_mismatch", message);

/** The products given fit the button: an MPM needs them; a catalog may take a thumbnail; the limits hold. */
export function checkTemplateProducts(name: string, kind: ProductButtonKind | undefined, products: TemplateProducts | undefined) {
  if (!kind) {
    if (products) throw mismatch(m.validation_send_products_not_taken({ name }));
    return;
  }
  if (!products) {
    if (kind === "MPM") throw mismatch(m.validation_send_products_needed({ name }));
    return;
  }
  if (!products.thumbnailRetailerId) throw mismatch(m.validation_send_products_thumbnail({ name }));
  if (kind === "CATALOG") {
    if (products.sections?.length) throw mismatch(m.validation_send_products_catalog_sections({ name }));
    return;
  }
  const sections = products.sections ?? [];
  const badSection = sections.some(
    (s) => !s.retailerIds.length || s.title.length > SECTION_TITLE_MAX || (sections.length > 1 && !s.title.trim()),
  );
  if (!sections.length || sections.length > TEMPLATE_SECTIONS_MAX || badSection)
    throw mismatch(m.validation_send_products_sections({ max: TEMPLATE_SECTIONS_MAX, title: SECTION_TITLE_MAX }));
  const count = sections.reduce((sum, s) => sum + s.retailerIds.length, 0);
  if (count > TEMPLATE_PRODUCTS_MAX) throw mismatch(m.validation_send_products_too_many({ max: TEMPLATE_PRODUCTS_MAX, count }));
}

/** Meta's button component for the products. */
export function productButtonComponent(index: number, kind: ProductButtonKind, products: TemplateProducts): Record<string, unknown> {
  const action: Record<string, unknown> = { thumbnail_product_retailer_id: products.thumbnailRetailerId };
  if (kind === "MPM")
    action.sections = (products.sections ?? []).map((s) => ({
      ...(s.title.trim() ? { title: s.title.trim() } : {}),
      product_items: s.retailerIds.map((id) => ({ product_retailer_id: id })),
    }));
  return { type: "button", sub_type: kind, index: String(index), parameters: [{ type: "action", action }] };
}
