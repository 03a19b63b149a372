// The limits and words of the templates forms, without zod: pages import them from here and load the
// schemas (templates.ts) only when a form is used (decision 061).

/** The saving intents; the others (a row added or removed, example fields shown) are the form sent back. */
export const SAVING_INTENTS = ["draft", "submit"] as const;
