import * as z from "zod/mini";

/** Settings → Ads: "Send conversions to Meta" on or off (a button each, nothing typed). */
export const ConversionConsentSchema = z.object({});

/** The inbox's "Mark as converted" (a button, nothing typed). */
export const MarkConvertedSchema = z.object({});
