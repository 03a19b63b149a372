// Shared with the browser: the form schemas run it for inline checks too.

/**
 * The invisible characters that reorder text: embeddings and overrides (U+202A to U+202E, the
 * right-to-left override among them), isolates (U+2066 to U+2069), the left-to-right and
 * right-to-left marks (U+200E, U+200F) and the Arabic letter mark (U+061C). In a name they only
 * serve to make it read as something else, here or in the text around it ("Acme" followed by an
 * override shows the rest of the line backwards).
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** A name (an organisation's, a person's, a contact's) without bidirectional controls; a name of nothing else is empty. */
export function withoutBidiControls(name: string) {
  return name.replace(BIDI_CONTROLS, "");
}
