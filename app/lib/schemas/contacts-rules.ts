// The limits and words of the contacts forms, without zod: pages import them from here and load the
// schemas (contacts.ts) only when a form is used (decision 061).

export const CONTACT_MESSAGES = {
  nameRequired: "Give the contact a name.",
  phoneRequired: "Enter their WhatsApp number, e.g. 0712 345 678.",
  evidenceRequired: "Say how they agreed or refused: the form, the message, the conversation.",
  tagRequired: "Name the tag first.",
  segmentName: "Give the segment a name (at most 80 characters).",
} as const;

/** Tags typed as "vip, nairobi": split on commas. */
export const splitTags = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
