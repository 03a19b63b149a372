// The limits and words of the approval forms, without zod: pages import them from here and load the
// schemas (approval.ts) only when a form is used (decision 061).

/** Broadcast approval (maker-checker, decision 033): the owner's setting and a decline's reason. */
export const APPROVAL_THRESHOLD_MAX = 1_000_000;

export const DECLINE_REASON_MAX = 500;

export const APPROVAL_MESSAGES = {
  thresholdRequired: "Give the number of recipients above which a campaign needs approval.",
  thresholdInvalid: "Give a whole number from 0 to 1,000,000.",
  reasonRequired: "Say why you decline it: the author reads it.",
  reasonTooLong: `Keep the reason to ${DECLINE_REASON_MAX} characters.`,
} as const;
