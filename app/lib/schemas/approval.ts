import * as z from "zod/mini";
import { APPROVAL_THRESHOLD_MAX, DECLINE_REASON_MAX, APPROVAL_MESSAGES } from "./approval-rules";
export { APPROVAL_THRESHOLD_MAX, DECLINE_REASON_MAX, APPROVAL_MESSAGES } from "./approval-rules";

/** "on" with a threshold, or off (the threshold is then ignored). */
export const ApprovalSettingSchema = z
  .object({
    enabled: z.optional(z.string()),
    threshold: z.optional(z.string().check(z.trim(), z.maxLength(20))),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (value.enabled !== "on") return;
      if (!value.threshold) ctx.addIssue({ code: "custom", path: ["threshold"], message: APPROVAL_MESSAGES.thresholdRequired });
      else if (
        !/^\d+$/.test(value.threshold.replace(/[ ,_]/g, "")) ||
        Number(value.threshold.replace(/[ ,_]/g, "")) > APPROVAL_THRESHOLD_MAX
      )
        ctx.addIssue({ code: "custom", path: ["threshold"], message: APPROVAL_MESSAGES.thresholdInvalid });
    }),
  );

/** The threshold a valid setting gives: null when approval is off. */
export function thresholdOf(value: z.output<typeof ApprovalSettingSchema>): number | null {
  return value.enabled === "on" ? Number(value.threshold!.replace(/[ ,_]/g, "")) : null;
}

/** Declining a campaign that waits for approval: the reason is required (the author sees it). */
export const DeclineSchema = z.object({
  reason: z
    .string({ error: () => APPROVAL_MESSAGES.reasonRequired })
    .check(
      z.trim(),
      z.minLength(1, { error: () => APPROVAL_MESSAGES.reasonRequired, abort: true }),
      z.maxLength(DECLINE_REASON_MAX, { error: () => APPROVAL_MESSAGES.reasonTooLong }),
    ),
});
