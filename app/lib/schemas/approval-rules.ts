// The limits and words of the approval forms, without zod: pages import them from here and load the
// schemas (approval.ts) only when a form is used (decision 061).
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** Broadcast approval (maker-checker, decision 033): the owner's setting and a decline's reason. */
export const APPROVAL_THRESHOLD_MAX = 1_000_000;

export const DECLINE_REASON_MAX = 500;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const APPROVAL_MESSAGES = {
  get thresholdRequired() {
    return m.validation_approval_threshold_required();
  },
  get thresholdInvalid() {
    return m.validation_approval_threshold_invalid({ min: formatNumber(0), max: formatNumber(APPROVAL_THRESHOLD_MAX) });
  },
  get reasonRequired() {
    return m.validation_decline_reason_required();
  },
  get reasonTooLong() {
    return m.validation_decline_reason_too_long({ max: DECLINE_REASON_MAX });
  },
};
