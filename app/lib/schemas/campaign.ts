import * as z from "zod/mini";
import { campaignValuesOf, LIST_MAX, numbersIn } from "~/lib/campaign-form";
import { zonedInstant } from "~/lib/dates";
import { CAMPAIGN_INTENTS, CAMPAIGN_MESSAGES } from "./campaign-rules";

export { CAMPAIGN_INTENTS, CAMPAIGN_MESSAGES } from "./campaign-rules";

export type CampaignKind = "campaign" | "broadcast";

export type CampaignIntent = (typeof CAMPAIGN_INTENTS)[number];
export const CampaignIntentSchema = z.object({ intent: z.enum(CAMPAIGN_INTENTS) });

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
  sms_fallback: text,
  sms_text: text,
  sms_after: text,
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
