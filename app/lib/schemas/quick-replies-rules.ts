// The limits and words of the quick-replies forms, without zod: pages import them from here and load the
// schemas (quick-replies.ts) only when a form is used (decision 061).

export const QUICK_REPLY_SHORTCUT_MAX = 30;

export const QUICK_REPLY_BODY_MAX = 1000;

export const QUICK_REPLIES_MAX = 200;

/** Letters, digits, - and _: what follows the / in the composer, with nothing to escape. */
export const QUICK_REPLY_SHORTCUT = /^[\p{L}\p{N}_-]{1,30}$/u;

export const QUICK_REPLY_MESSAGES = {
  shortcutRequired: "Give the shortcut typed after /, e.g. hours.",
  shortcutFormat: "A shortcut is letters, digits, - and _ only (no spaces), e.g. opening-hours.",
  shortcutTooLong: `A shortcut has at most ${QUICK_REPLY_SHORTCUT_MAX} characters.`,
  shortcutTaken: "A saved answer with this shortcut exists.",
  bodyRequired: "Write the answer the shortcut inserts.",
  bodyTooLong: `A saved answer has at most ${QUICK_REPLY_BODY_MAX.toLocaleString("en-GB")} characters.`,
  limit: `An organisation keeps at most ${QUICK_REPLIES_MAX} saved answers: delete one first.`,
  notFound: "No such saved answer in your organisation.",
  forbidden: "Only the organisation's owner and admins can change its saved answers.",
} as const;
