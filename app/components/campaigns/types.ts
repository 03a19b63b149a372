import type { campaignFormChoices, TemplateChoice } from "~/.server/domains/campaigns/page-data";

export type { TemplateChoice };
/** What the New Campaign form offers: senders, approved templates, contact fields, segments, tags, uploads. */
export type CampaignChoices = Awaited<ReturnType<typeof campaignFormChoices>>;
/** The form's messages by the field that shows them (the form's own show above it). */
export type CampaignErrors = Partial<
  Record<"name" | "from" | "template" | "parameters" | "audience" | "scheduledFor" | "smsFallback", string>
>;

export const MEDIA_HEADERS = ["IMAGE", "VIDEO", "DOCUMENT"];
