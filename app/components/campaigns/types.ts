import type { campaignFormChoices, TemplateChoice } from "~/.server/domains/campaigns/page-data";

export type { TemplateChoice };
/** What the New Campaign form offers: senders, approved templates, contact fields, segments, tags, uploads. */
export type CampaignChoices = Awaited<ReturnType<typeof campaignFormChoices>>;
/** The form's messages by the field that shows them (the form's own show above it). */
export type CampaignErrors = Partial<
  Record<"name" | "from" | "template" | "parameters" | "audience" | "scheduledFor" | "smsFallback", string>
>;

export const MEDIA_HEADERS = ["IMAGE", "VIDEO", "DOCUMENT"];

/**
 * What a catalog or multi-product template's products are chosen from (decision 146): the products
 * the form names and at most 50 others found by "Find a product" (`query`), how many there are in all,
 * and the page's address the search reloads.
 */
export interface CampaignPicker {
  products: { id: string; name: string; retailerId: string; priceCents: number; availability: string }[];
  total: number;
  query: string;
  action: string;
}
