/**
 * The contacts domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { attributeDefinitions, attributeValue } from "./attributes";
export type { AttributeDefinition } from "./attributes";
export { CsvError, csvRecords } from "./csv/reader";
export { contactPhone } from "./fields";
export { DUPLICATE_POLICIES, importFromRows, startImport, suggestMapping } from "./import";
export type { DuplicatePolicy, ImportView } from "./import";
export { contactConditions, phoneHash, saveContact } from "./manage";
export { contactDataExport, eraseContact } from "./rights";
export type { ErasedCopy } from "./rights";
export { getSegment, listSegments, saveSegment } from "./segments";
export { consentKeyword, recordConsent } from "./consent";
export { consentOfMessage } from "./signals";
export { contactFilterChoices, contactTagChoices, pruneContactTags } from "./tags";
