import { randomUUID } from "node:crypto";

/**
 * The keys storage makes, never from user input: `org/<organisation id>/<xx>/<uuid>` for every new
 * file (two hex characters of fan-out, 256 folders per organisation; decision 161), so an
 * organisation's files are one prefix a bucket can list, delete or give a lifecycle rule. Keys
 * made before (`<xx>/<uuid>`) stay readable and deletable.
 */
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const KEY = new RegExp(`^(?:org/${UUID}/)?[0-9a-f]{2}/${UUID}$`);
const ORGANISATION = new RegExp(`^${UUID}$`);

export class StorageNotFoundError extends Error {
  constructor(key: string) {
    super(`No stored file ${key}.`);
    this.name = "StorageNotFoundError";
  }
}

/** Whether `key` has the shape of a key this module made (new or old). */
export function isStorageKey(key: string) {
  return KEY.test(key);
}

/** `key` itself, or StorageNotFoundError for anything this module did not make (a path from outside). */
export function checkedKey(key: string) {
  if (!KEY.test(key)) throw new StorageNotFoundError(key.slice(0, 80));
  return key;
}

/** The folder (prefix, with its trailing slash) of one organisation's files. */
export function organisationPrefix(organisationId: string) {
  if (!ORGANISATION.test(organisationId)) throw new TypeError("An organisation id must be a lower-case UUID.");
  return `org/${organisationId}/`;
}

export function newKey(organisationId: string) {
  const id = randomUUID();
  return `${organisationPrefix(organisationId)}${id.slice(0, 2)}/${id}`;
}
