// Shared with the browser for inline checks; the server checks again (app/.server/domains/inbox/quick-replies.ts).
import * as z from "zod/mini";

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

const shortcut = z.string({ error: QUICK_REPLY_MESSAGES.shortcutRequired }).check(
  z.trim(),
  // Typed with its slash ("/hours"), it is the same shortcut.
  z.overwrite((value) => value.replace(/^\/+/, "").trim()),
  z.minLength(1, { error: QUICK_REPLY_MESSAGES.shortcutRequired, abort: true }),
  z.maxLength(QUICK_REPLY_SHORTCUT_MAX, { error: QUICK_REPLY_MESSAGES.shortcutTooLong, abort: true }),
  z.regex(QUICK_REPLY_SHORTCUT, QUICK_REPLY_MESSAGES.shortcutFormat),
);

const body = z
  .string({ error: QUICK_REPLY_MESSAGES.bodyRequired })
  .check(
    z.trim(),
    z.minLength(1, { error: QUICK_REPLY_MESSAGES.bodyRequired, abort: true }),
    z.maxLength(QUICK_REPLY_BODY_MAX, QUICK_REPLY_MESSAGES.bodyTooLong),
  );

/** A saved answer: its shortcut (typed after / in the composer) and the text it inserts. */
export const QuickReplySchema = z.object({ shortcut, body });
export type QuickReplyInput = z.output<typeof QuickReplySchema>;
