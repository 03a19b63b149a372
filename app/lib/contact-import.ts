/** The contacts CSV import's limits and choices, shared by its pages and app/.server/domains/contacts/import.ts. */

/** The largest CSV file an import takes. */
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024;
/** The upload form's field that carries the file. */
export const IMPORT_FILE_FIELD = "file";

/** What a row does when its number is already a contact, or appears again in the file. */
export type DuplicatePolicy = "skip" | "update" | "merge_tags";
export const DUPLICATE_POLICIES: readonly DuplicatePolicy[] = ["skip", "update", "merge_tags"];

/** The contact fields a column can fill (besides `attr:<key>`, the tenant's custom fields). */
export const IMPORT_FIELDS = ["name", "phone", "tags", "language", "notes"] as const;
