export const OPT_IN_LABELS = { opted_in: "Opted in", opted_out: "Opted out", unknown: "Not asked" } as const;

/** Where a consent record came from, in words. */
export const SOURCE_LABELS = {
  form: "A form",
  manual: "Told us in person",
  import: "An import",
  api: "The API",
  keyword: "A keyword message",
  meta: "WhatsApp (Meta)",
} as const;
