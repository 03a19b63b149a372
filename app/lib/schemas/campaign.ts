import * as z from "zod/mini";
import { campaignValuesOf, LIST_MAX, numbersIn, UPLOAD_MAX_BYTES } from "~/lib/campaign-form";
import { formatNumber, zonedInstant, zoneWords } from "~/lib/dates";

export type CampaignKind = "campaign" | "broadcast";

/** Choose (show the template's placeholders) and Back only show the form again: the others are checked. */
export const CAMPAIGN_INTENTS = ["choose", "back", "review", "confirm", "draft"] as const;
export type CampaignIntent = (typeof CAMPAIGN_INTENTS)[number];
export const CampaignIntentSchema = z.object({ intent: z.enum(CAMPAIGN_INTENTS) });

export const CAMPAIGN_MESSAGES = {
  template: "Choose an approved template.",
  listTooLong: (count: number) => `A list holds at most ${formatNumber(LIST_MAX)} numbers; this one has ${formatNumber(count)}.`,
  scheduledFor: () => `Give the date and the time (${zoneWords()}) to send it.`,
  fileTooLarge: `The file is larger than ${formatNumber(UPLOAD_MAX_BYTES / 1_000_000)} MB: upload at most ${formatNumber(LIST_MAX)} numbers.`,
  fileEmpty: "The file holds no phone numbers: one number a line, or a CSV with a phone column.",
} as const;

const text = z.optional(z.string());

/**
 * The New Campaign and Quick Broadcast form (see campaign-form.ts for its flat placeholder fields,
 * kept as posted). The domain checks what the values mean and answers by field; this checks what
 * the form can tell by itself, at the fields the page shows: `template`, `audience`, `scheduledFor`.
 */
const CampaignFieldsSchema = z.looseObject({
  name: text,
  from: text,
  template: text,
  segment: text,
  tags: text,
  everyone: text,
  phones: text,
  when: text,
  date: text,
  time: text,
});

export function campaignFormSchema(kind: CampaignKind) {
  return CampaignFieldsSchema.check(
    z.superRefine((fields, ctx) => {
      const values = campaignValuesOf(fields);
      if (!values.template) ctx.addIssue({ code: "custom", path: ["template"], message: CAMPAIGN_MESSAGES.template });
      const phones = numbersIn(values.phones);
      if (phones.length > LIST_MAX)
        ctx.addIssue({ code: "custom", path: ["audience"], message: CAMPAIGN_MESSAGES.listTooLong(phones.length) });
      if (kind === "campaign" && values.when === "later" && !zonedInstant(values.date, values.time))
        ctx.addIssue({ code: "custom", path: ["scheduledFor"], message: CAMPAIGN_MESSAGES.scheduledFor() });
    }),
  );
}

/** The form as posted, unchecked: what Choose and Back show again, and the answer to a refused upload. */
export const campaignFieldsSchema = () => CampaignFieldsSchema;

/** A campaign page's buttons: the decision on it (a decline's reason is DeclineSchema's) and its controls. */
export const CampaignPageActionSchema = z.object({
  intent: z.enum(["approve", "decline", "pause", "resume", "cancel"]),
  // Cancel's second step says "yes".
  confirm: z.optional(z.string()),
});
