// The limits and words of the campaign forms, without zod: pages import them from here and load the
// schemas (campaign.ts) only when a form is used (decision 061).
import { LIST_MAX, UPLOAD_MAX_BYTES } from "~/lib/campaign-form";
import { formatNumber, zoneWords } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** Choose (show the template's placeholders) and Back only show the form again: the others are checked. */
export const CAMPAIGN_INTENTS = ["choose", "back", "review", "confirm", "draft"] as const;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const CAMPAIGN_MESSAGES = {
  get template() {
    return m.validation_campaign_template();
  },
  listTooLong: (count: number) => m.validation_campaign_list_too_long({ max: formatNumber(LIST_MAX), count: formatNumber(count) }),
  scheduledFor: () => m.validation_campaign_scheduled_for({ zone: zoneWords() }),
  get fileTooLarge() {
    return m.validation_campaign_file_too_large({ size: formatNumber(UPLOAD_MAX_BYTES / 1_000_000), max: formatNumber(LIST_MAX) });
  },
  get fileEmpty() {
    return m.validation_campaign_file_empty();
  },
};
