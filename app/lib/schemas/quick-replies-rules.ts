// The limits and words of the quick-replies forms, without zod: pages import them from here and load the
// schemas (quick-replies.ts) only when a form is used (decision 061).
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export const QUICK_REPLY_SHORTCUT_MAX = 30;

export const QUICK_REPLY_BODY_MAX = 1000;

export const QUICK_REPLIES_MAX = 200;

/** Letters, digits, - and _: what follows the / in the composer, with nothing to escape. */
export const QUICK_REPLY_SHORTCUT = /^[\p{L}\p{N}_-]{1,30}$/u;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const QUICK_REPLY_MESSAGES = {
  get shortcutRequired() {
    return m.validation_quick_reply_shortcut_required();
  },
  get shortcutFormat() {
    return m.validation_quick_reply_shortcut_format();
  },
  get shortcutTooLong() {
    return m.validation_quick_reply_shortcut_too_long({ max: QUICK_REPLY_SHORTCUT_MAX });
  },
  get shortcutTaken() {
    return m.validation_quick_reply_shortcut_taken();
  },
  get bodyRequired() {
    return m.validation_quick_reply_body_required();
  },
  get bodyTooLong() {
    return m.validation_quick_reply_body_too_long({ max: formatNumber(QUICK_REPLY_BODY_MAX) });
  },
  get limit() {
    return m.validation_quick_reply_limit({ max: formatNumber(QUICK_REPLIES_MAX) });
  },
  get notFound() {
    return m.validation_quick_reply_not_found();
  },
  get forbidden() {
    return m.validation_quick_reply_forbidden();
  },
};
