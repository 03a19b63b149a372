// The limits and words of the campaign forms, without zod: pages import them from here and load the
// schemas (campaign.ts) only when a form is used (decision 061).
import { LIST_MAX, UPLOAD_MAX_BYTES } from "~/lib/campaign-form";
import { formatNumber, zoneWords } from "~/lib/dates";

/** Choose (show the template's placeholders) and Back only show the form again: the others are checked. */
export const CAMPAIGN_INTENTS = ["choose", "back", "review", "confirm", "draft"] as const;

export const CAMPAIGN_MESSAGES = {
  template: "Choose an approved template.",
  listTooLong: (count: number) => `A list holds at most ${formatNumber(LIST_MAX)} numbers; this one has ${formatNumber(count)}.`,
  scheduledFor: () => `Give the date and the time (${zoneWords()}) to send it.`,
  fileTooLarge: `The file is larger than ${formatNumber(UPLOAD_MAX_BYTES / 1_000_000)} MB: upload at most ${formatNumber(LIST_MAX)} numbers.`,
  fileEmpty: "The file holds no phone numbers: one number a line, or a CSV with a phone column.",
} as const;
