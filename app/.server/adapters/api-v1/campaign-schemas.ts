import { z } from "zod";
import { AUDIENCE_CONTACT_IDS_MAX, AUDIENCE_PHONES_MAX, AUDIENCE_TAGS_MAX } from "../../domains/campaigns/audience";
import { CAMPAIGN_NAME_MAX, SCHEDULE_MAX_DAYS } from "../../domains/campaigns/lifecycle";
import { CAMPAIGN_STATUSES } from "../../domains/campaigns/queries";
import { PARAMETER_MAX } from "../../domains/campaigns/variables";
import { FILENAME_MAX, LINK_MAX } from "../../domains/campaigns/template-values";
import { TAG_MAX } from "../../domains/contacts/fields";
import { SMS_MAX_LENGTH } from "~/lib/sms-price";
import { FALLBACK_AFTER_DEFAULT, FALLBACK_AFTER_MAX, FALLBACK_AFTER_MIN } from "~/lib/sms-fallback";

/** The campaign endpoints' shapes; the OpenAPI document is generated from them. */

const LEFT_OUT_REASONS = ["not_opted_in", "erased", "invalid_number", "duplicate", "missing_value", "cancelled", "no_products"] as const;

const sourceShape = {
  field: z
    .string()
    .min(1, "name a contact field: name, first_name, phone or one of your custom fields' keys")
    .max(60)
    .optional()
    .describe("A contact field: name, first_name, phone, or the key of one of your custom fields."),
  fallback: z
    .string()
    .max(PARAMETER_MAX)
    .optional()
    .describe("With field: the text for a person whose field is empty. Without one, such a person is left out (missing_value)."),
  value: z
    .string()
    .min(1, "give the text, or map it to a contact field")
    .max(PARAMETER_MAX)
    .optional()
    .describe("A fixed text, the same for everyone."),
};

type SourceFields = { field?: string; fallback?: string; value?: string };
const FIELD_OR_VALUE = "give field (a contact field) or value (a fixed text), not both";
const FALLBACK_WITH_FIELD = "a fallback goes with a field, not with a fixed value";
const fieldOrValue = (p: SourceFields) => (p.field === undefined) !== (p.value === undefined);
const fallbackWithField = (p: SourceFields) => p.fallback === undefined || p.field !== undefined;

/** One placeholder's value: a contact field (with a fallback for people without it), or a fixed text. */
export const CampaignParameter = z
  .object(sourceShape)
  .strict()
  .refine(fieldOrValue, FIELD_OR_VALUE)
  .refine(fallbackWithField, FALLBACK_WITH_FIELD)
  .meta({ id: "CampaignParameter" });

/** A text header's placeholder (like a body placeholder), or a media header's file. */
export const CampaignHeader = z
  .object({
    ...sourceShape,
    link: z
      .url({ protocol: /^https?$/, error: "give the file's https:// address" })
      .max(LINK_MAX)
      .optional()
      .describe("A media header's file: its public https address, which Meta fetches."),
    mediaId: z
      .uuid({ error: "not a media file's id (the UUID POST /api/v1/media answers)" })
      .optional()
      .describe("A media header's file: one uploaded first with POST /api/v1/media."),
    filename: z.string().min(1).max(FILENAME_MAX).optional().describe("A document header: the name the customer sees."),
  })
  .strict()
  .superRefine((h, ctx) => {
    const problem = headerProblem(h);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: [] });
  })
  .describe(
    "The template's header: for a text header with a placeholder, { field, fallback? } or { value }; for an image, video or document header, the file for everyone as { link } (https) or { mediaId }, with filename for a document.",
  )
  .meta({ id: "CampaignHeader" });

function headerProblem(h: SourceFields & { link?: string; mediaId?: string; filename?: string }) {
  const file = h.link !== undefined || h.mediaId !== undefined;
  if (file && (h.field !== undefined || h.value !== undefined || h.fallback !== undefined))
    return "give a text header's value (field or value) or a media header's file (link or mediaId), not both";
  if (file) return h.link !== undefined && h.mediaId !== undefined ? "give link or mediaId, not both" : undefined;
  if (h.filename !== undefined) return "filename goes with a media header's link or mediaId";
  if (!fieldOrValue(h)) return "give field or value (a text header's placeholder), or link or mediaId (a media header's file)";
  return fallbackWithField(h) ? undefined : FALLBACK_WITH_FIELD;
}

/** A button's value per person: a dynamic URL button's suffix or a copy-code button's code. */
export const CampaignButton = z
  .object({
    index: z.int().min(0).max(9).describe("The button's position among the template's buttons, from 0."),
    ...sourceShape,
  })
  .strict()
  .refine(fieldOrValue, FIELD_OR_VALUE)
  .refine(fallbackWithField, FALLBACK_WITH_FIELD)
  .meta({ id: "CampaignButton" });

/**
 * A catalog or multi-product template's products (decision 146), by the ids of the shop's products.
 * Only the shape is checked here: the campaign's own rules (a thumbnail, 1 to 10 sections, 30 products,
 * titles, products in the WhatsApp catalog) answer with the campaign form's words.
 */
export const CampaignProducts = z
  .object({
    thumbnail: z.string().max(64).describe("The product whose picture heads the message (its id)."),
    sections: z
      .array(
        z
          .object({
            title: z.string().max(200).default("").describe("The section's title (at most 24 characters; needed with several sections)."),
            productIds: z.array(z.string().max(64)).max(100).describe("The section's products, by id."),
          })
          .strict(),
      )
      .max(50)
      .optional()
      .describe("A multi-product template's sections: 1 to 10, with at most 30 products in all. A catalog template takes none."),
  })
  .strict()
  .describe(
    "For a catalog or multi-product template only: the products it shows, by their ids (a product's page in Shop → Products is /shop/products/<id>), chosen from your shop's products in your WhatsApp catalog. A product removed from the shop before sending is left out.",
  )
  .meta({ id: "CampaignProducts" });

export const CampaignAudience = z
  .object({
    segmentId: z.uuid({ error: "not a segment's id (a UUID)" }).optional().describe("A segment of your contact book."),
    tags: z
      .array(z.string().max(TAG_MAX))
      .max(AUDIENCE_TAGS_MAX)
      .optional()
      .describe(`Contacts with any of these tags (at most ${AUDIENCE_TAGS_MAX}).`),
    contactIds: z
      .array(z.uuid({ error: "not a contact's id (a UUID)" }))
      .max(AUDIENCE_CONTACT_IDS_MAX)
      .optional()
      .describe("Contacts by id."),
    phones: z
      .array(z.string().max(40))
      .max(AUDIENCE_PHONES_MAX)
      .optional()
      .describe(
        "Numbers in any form (Kenyan unless they have a country code), contacts or not, each sent to once. The body is at most 64 KB (about 3,500 numbers): use tags or a segment for more.",
      ),
    everyone: z.boolean().optional().describe("Everyone opted in to your messages."),
  })
  .strict()
  .describe("Who receives it: any mix of these, each person once. Give at least one.")
  .meta({ id: "CampaignAudience" });

/** The SMS for anyone WhatsApp cannot reach (decision 152): needs SMS connected (Settings → SMS). */
export const CampaignSmsFallbackIn = z
  .object({
    text: z
      .string()
      .max(SMS_MAX_LENGTH)
      .optional()
      .describe(
        `The SMS's own text, up to ${SMS_MAX_LENGTH} characters; the template's placeholders ({{1}}, {{2}}...) take each person's values. Without it, the template's body is sent by SMS.`,
      ),
    afterMinutes: z
      .number()
      .int()
      .optional()
      .describe(
        `Also send it when WhatsApp has not delivered the message within this many minutes (${FALLBACK_AFTER_MIN} to ${FALLBACK_AFTER_MAX}; ${FALLBACK_AFTER_DEFAULT} when absent).`,
      ),
  })
  .strict()
  .describe(
    "Send an SMS (through your Africa's Talking account) to anyone WhatsApp cannot reach (Meta's undeliverable errors) or who has not received the message in time: at most one SMS each, and none once WhatsApp has delivered. Priced per part and charged like messages.",
  )
  .meta({ id: "CampaignSmsFallback" });

export const CampaignCreate = z
  .object({
    name: z.string().min(1, "give the campaign a name").max(CAMPAIGN_NAME_MAX).describe("Your name for it, shown in Jumbe."),
    template: z.string().min(1, "name an approved template").max(512).describe("The approved template's name."),
    language: z.string().min(2).max(15).optional().describe("The template's language (en, sw, en_US); the first approved one otherwise."),
    from: z
      .string()
      .min(1)
      .max(40)
      .optional()
      .describe("The sending number (E.164) or Meta's id for it; your first connected number otherwise."),
    audience: CampaignAudience,
    parameters: z
      .array(CampaignParameter)
      .max(100)
      .default([])
      .describe("The body's placeholders in order ({{1}}, {{2}}...): each a contact field or a fixed value."),
    header: CampaignHeader.optional(),
    buttons: z
      .array(CampaignButton)
      .max(10)
      .refine((b) => new Set(b.map((x) => x.index)).size === b.length, "give each button once")
      .optional()
      .describe(
        "One value per button that takes one: a URL button whose link ends in {{1}} (the end of the link, per person) and a copy-code button (the code). Each a contact field (with a fallback) or a fixed value; a person whose value would be empty is left out (missing_value).",
      ),
    products: CampaignProducts.optional(),
    smsFallback: CampaignSmsFallbackIn.nullable().optional(),
    scheduledFor: z.iso
      .datetime({ offset: true, error: "give the date and time with its offset, such as 2026-12-01T09:00:00+03:00 (Nairobi)" })
      .nullable()
      .optional()
      .describe(`When to start it, with its offset (+03:00 for Nairobi), at most ${SCHEDULE_MAX_DAYS} days ahead; now when absent.`),
    draft: z.boolean().optional().describe("Save it as a draft: it does not start, and its audience may be empty."),
  })
  .strict()
  .meta({ id: "CampaignCreate" });

/** A date a week ahead at 09:00 in Nairobi, as the example schedules (never a date in the past). */
export function exampleSchedule(now = new Date()) {
  const nairobi = new Date(now.getTime() + 3 * 3_600_000 + 7 * 86_400_000);
  return `${nairobi.toISOString().slice(0, 10)}T09:00:00+03:00`;
}

/** The documented example: the approved UTILITY template agm_reminder ("Dear {{1}}, our AGM is on {{2}}..."). */
export const campaignCreateExample = (now = new Date()): z.input<typeof CampaignCreate> => ({
  name: "AGM reminder",
  template: "agm_reminder",
  language: "en",
  audience: { tags: ["members"], phones: ["+254712345678"] },
  parameters: [{ field: "first_name", fallback: "member" }, { value: "Saturday at 10:00, Nyota Hall" }],
  scheduledFor: exampleSchedule(now),
});

const Counts = z
  .object({
    queued: z.number().int().describe("Waiting to leave."),
    sent: z.number().int().describe("Accepted by Meta."),
    delivered: z.number().int(),
    read: z.number().int(),
    replied: z.number().int().describe("People who wrote back within 72 hours of delivery."),
    failed: z.number().int(),
  })
  .describe("The figures so far, at most a second old.");

const LeftOut = z
  .partialRecord(z.enum(LEFT_OUT_REASONS), z.number().int())
  .describe(
    "People left out, by reason: not_opted_in (a marketing template), erased, invalid_number, duplicate, missing_value, cancelled.",
  );

const ParameterOut = z.union([z.object({ field: z.string(), fallback: z.string().optional() }), z.object({ value: z.string() })]);

const ParametersOut = z.object({
  body: z.array(ParameterOut),
  header: ParameterOut.optional().describe("A text header's placeholder."),
  headerMedia: z
    .object({ link: z.string().optional(), mediaId: z.string().optional(), filename: z.string().optional() })
    .optional()
    .describe("A media header's file, the same for everyone: its link or the uploaded file's id."),
  buttons: z
    .array(z.object({ index: z.number().int(), source: ParameterOut }))
    .optional()
    .describe("The buttons' values by the button's position: a dynamic URL's suffix or a copy code."),
  products: z
    .object({
      thumbnail: z.string(),
      sections: z.array(z.object({ title: z.string(), productIds: z.array(z.string()) })).optional(),
    })
    .optional()
    .describe("A catalog or multi-product template's products, by the shop's product ids, as given."),
});

export const Campaign = z
  .object({
    id: z.uuid(),
    kind: z.enum(["campaign", "broadcast"]).describe("A quick broadcast from the Message Center is a broadcast."),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    from: z.string().nullable().describe("The sending number (E.164)."),
    phoneNumberId: z.string().describe("Meta's id of the sending number."),
    template: z.object({ name: z.string(), language: z.string(), category: z.string() }),
    parameters: ParametersOut,
    smsFallback: z
      .object({
        text: z.string().describe("What the SMS says, before each person's values."),
        fromTemplate: z.boolean().describe("The template's body, rather than a text of its own."),
        afterMinutes: z.number().int(),
        counts: z
          .object({
            sent: z.number().int().describe("SMS sent instead."),
            pending: z.number().int().describe("Waiting (quiet hours, or just decided)."),
            cancelled: z.number().int().describe("Not needed: WhatsApp delivered first."),
            skipped: z.number().int().describe("Not sent: opted out, no balance, too long..."),
          })
          .optional()
          .describe("How it went so far; in the answers about one campaign (not in the list)."),
      })
      .nullable()
      .describe("The SMS fallback, or null."),
    audience: z.object({
      segmentId: z.string().optional(),
      tags: z.array(z.string()).optional(),
      contactIds: z.array(z.string()).optional(),
      phones: z.array(z.string()).optional(),
      everyone: z.boolean().optional(),
    }),
    audienceLabel: z.string().describe("The audience in words."),
    audienceSize: z.number().int().nullable().describe("Everyone the audience named, counted when it started (null before)."),
    leftOut: LeftOut,
    estimatedCostKes: z
      .number()
      .nullable()
      .describe(
        "The estimated cost in KES at your plan's prices: KES 2.00 a message from a prepaid wallet, or a postpaid plan's overage beyond its included messages.",
      ),
    counts: Counts,
    pausedReason: z.string().nullable().describe("Why Jumbe paused it (a template paused by Meta, the number's quality...)."),
    pausedBy: z.string().nullable().describe("Who paused it."),
    notice: z.string().nullable().describe("A note while it sends, such as the messaging limit holding it back."),
    approval: z
      .object({
        requestedAt: z.iso.datetime().nullable().describe("While it waits: when it was put to approval."),
        approvedBy: z.string().nullable().describe("The owner or admin who approved it."),
        approvedAt: z.iso.datetime().nullable(),
        declinedBy: z.string().nullable().describe("The owner or admin who declined it (it is then cancelled)."),
        declinedAt: z.iso.datetime().nullable(),
        declineReason: z.string().nullable().describe("Why it was declined."),
      })
      .nullable()
      .describe(
        "Broadcast approval: with it on, a campaign to more recipients than the organisation's threshold is awaiting_approval until an owner or admin approves it in Jumbe (for one made through the API, any owner or admin; otherwise one other than its author). Null when it never needed approval.",
      ),
    scheduledFor: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "Campaign" });

export const CampaignEstimate = z
  .object({
    recipients: z.number().int().describe("The people who will receive it."),
    leftOut: LeftOut,
    estimatedCostKes: z.number().describe("What sending to the recipients costs, in KES."),
  })
  .describe("Who receives it and what it costs, as counted when it was created.")
  .meta({ id: "CampaignEstimate" });

export const CreatedCampaign = Campaign.extend({ estimate: CampaignEstimate }).meta({ id: "CreatedCampaign" });

export const CampaignList = z
  .object({
    data: z.array(Campaign).describe("Newest first."),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
  })
  .meta({ id: "CampaignList" });

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The list's cursor as queries.ts writes it: base64url of `created_at|id`, the time as PostgreSQL
 * writes a timestamptz ("2026-11-23 12:58:50.123456+00"). Checked to the day's existence, since
 * PostgreSQL refuses a time JavaScript would read (2026-02-30, year 0).
 */
export function isCampaignCursor(value: string) {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return false;
  const [at, id, ...rest] = Buffer.from(value, "base64url").toString().split("|");
  if (rest.length || !UUID.test(id ?? "")) return false;
  const parts = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/.exec(at ?? "");
  if (!parts) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1970 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
}

export const CampaignsQuery = z
  .object({
    search: z.string().trim().max(100).optional().describe("Part of the campaign's or the template's name."),
    status: z.enum(CAMPAIGN_STATUSES).optional(),
    cursor: z
      .string()
      .refine(isCampaignCursor, "not a cursor of this list: pass nextCursor from the previous page")
      .optional()
      .describe("nextCursor of the previous page."),
    limit: z.coerce.number().int().min(1).max(100).default(25).describe("Campaigns per page, 1 to 100."),
  })
  .strict();

export const CampaignIdParams = z.object({ id: z.string().describe("The campaign's id (a UUID) from creating it or from the list.") });
