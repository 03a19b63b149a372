import * as z from "zod/mini";
import { m } from "~/paraglide/messages";

/** Settings → Ads: "Send conversions to Meta" on or off (a button each, nothing typed). */
export const ConversionConsentSchema = z.object({});

/** The inbox's "Mark as converted" (a button, nothing typed). */
export const MarkConvertedSchema = z.object({});

/** How many tags may mean "converted", and how long each (a contact's tag is at most 40 characters). */
export const LEAD_TAGS_MAX = 20;
export const LEAD_TAG_LENGTH_MAX = 40;

/**
 * Settings → Ads: the tags that mean "converted" (decision 158), typed as a list separated by commas
 * (empty: none). Lower-cased and trimmed as a contact's tags are, each once.
 */
export const LeadTagsSchema = z.object({
  leadTags: z.pipe(
    z.optional(z.string()),
    z.transform((value, ctx) => {
      const tags = [
        ...new Set(
          (value ?? "")
            .split(/[,;\n]+/)
            .map((t) => t.replace(/\s+/g, " ").trim().toLowerCase())
            .filter(Boolean),
        ),
      ];
      const long = tags.find((t) => [...t].length > LEAD_TAG_LENGTH_MAX);
      if (long) ctx.issues.push({ code: "custom", input: value, message: m.ads_lead_tags_too_long({ max: LEAD_TAG_LENGTH_MAX }) });
      else if (tags.length > LEAD_TAGS_MAX)
        ctx.issues.push({ code: "custom", input: value, message: m.ads_lead_tags_too_many({ max: LEAD_TAGS_MAX }) });
      else return tags;
      return z.NEVER;
    }),
  ),
});
