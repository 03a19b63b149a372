/**
 * The socket errors that mean a server on the other side cannot be reached (refused, reset, timed
 * out, no route, no name): PostgreSQL for the database's availability (db/availability.ts), the
 * object store for the file store's (storage/s3.ts).
 */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
