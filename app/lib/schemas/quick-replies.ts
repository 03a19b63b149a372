// Shared with the browser for inline checks; the server checks again (app/.server/domains/inbox/quick-replies.ts).
import * as z from "zod/mini";
import { QUICK_REPLY_SHORTCUT_MAX, QUICK_REPLY_BODY_MAX, QUICK_REPLY_SHORTCUT, QUICK_REPLY_MESSAGES } from "./quick-replies-rules";
export {
  QUICK_REPLY_SHORTCUT_MAX,
  QUICK_REPLY_BODY_MAX,
  QUICK_REPLIES_MAX,
  QUICK_REPLY_SHORTCUT,
  QUICK_REPLY_MESSAGES,
} from "./quick-replies-rules";

const shortcut = z.string({ error: () => QUICK_REPLY_MESSAGES.shortcutRequired }).check(
  z.trim(),
  // Typed with its slash ("/hours"), it is the same shortcut.
  z.overwrite((value) => value.replace(/^\/+/, "").trim()),
  z.minLength(1, { error: () => QUICK_REPLY_MESSAGES.shortcutRequired, abort: true }),
  z.maxLength(QUICK_REPLY_SHORTCUT_MAX, { error: () => QUICK_REPLY_MESSAGES.shortcutTooLong, abort: true }),
  z.regex(QUICK_REPLY_SHORTCUT, { error: () => QUICK_REPLY_MESSAGES.shortcutFormat }),
);

const body = z
  .string({ error: () => QUICK_REPLY_MESSAGES.bodyRequired })
  .check(
    z.trim(),
    z.minLength(1, { error: () => QUICK_REPLY_MESSAGES.bodyRequired, abort: true }),
    z.maxLength(QUICK_REPLY_BODY_MAX, { error: () => QUICK_REPLY_MESSAGES.bodyTooLong }),
  );

/** A saved answer: its shortcut (typed after / in the composer) and the text it inserts. */
export const QuickReplySchema = z.object({ shortcut, body });
export type QuickReplyInput = z.output<typeof QuickReplySchema>;
