import type { Readable } from "node:stream";

/**
 * Where Jumbe keeps the bytes of files (media, customers' files, contact imports, product images):
 * one interface with two implementations, the local folder (the default) and an S3-compatible
 * bucket (decisions 023 and 161), chosen by `STORAGE`. Keys are made here, never from user input:
 * a file name or an id from a request cannot name a path or an object.
 */
export interface FileStorage {
  /**
   * Writes `source` under a new key of `organisationId`'s, all or nothing: a reader never sees half
   * a file. Past `maxBytes` the write stops, nothing is kept, and it throws StorageLimitError.
   * Answers the key, the size and the SHA-256 (hex) of what was written. Never holds the whole body.
   */
  write(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, options: WriteOptions): Promise<StoredFile>;
  /**
   * The bytes of a key as a stream (only `range`'s, first and last byte included, when given: an
   * HTTP Range request); StorageNotFoundError when there is no such file.
   */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /**
   * Runs `consume` with the bytes as a Blob read from disk as it is consumed (an upload's body), never
   * held in memory: the local file itself, or a bucket's object copied to a temporary file first
   * and removed when `consume` settles.
   */
  withBlob<T>(key: string, type: string, consume: (blob: Blob) => Promise<T>): Promise<T>;
  /** Deletes the key; a key already gone is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every file under the organisation's prefix (its erasure); answers how many went. */
  deleteOrganisation(organisationId: string): Promise<number>;
  /**
   * A short-lived address the browser may fetch the bytes from itself (a presigned URL), when the
   * storage is configured to hand downloads out that way; null: stream them through Jumbe.
   */
  downloadUrl(key: string, answer: { contentType: string; contentDisposition: string }): Promise<string | null>;
}

export interface WriteOptions {
  maxBytes: number;
  /** The owner: the key is made under `org/<organisationId>/`. */
  organisationId: string;
  /** Kept with the object where the storage keeps one (S3's Content-Type). */
  contentType?: string;
}

export interface StoredFile {
  key: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

/** A write went past its byte cap: nothing was kept. */
export class StorageLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes.`);
    this.name = "StorageLimitError";
  }
}

/** Seconds a client is told to wait (Retry-After) while the file store cannot be reached. */
export const STORAGE_RETRY_AFTER_SECONDS = 10;

/**
 * The file store cannot be reached (refused connection, timeout, 5xx or SlowDown after the SDK's
 * retries, or a store that refuses Jumbe's credentials): downloads answer 503 with Retry-After and
 * uploads a clear 503. The store's own error is in `detail`, not `cause`: a network error's code in
 * the cause chain would read as the database being down (db/availability.ts).
 */
export class StorageUnavailableError extends Error {
  readonly retryAfterSeconds = STORAGE_RETRY_AFTER_SECONDS;
  constructor(
    readonly operation: string,
    readonly detail: string,
  ) {
    // The detail stays out of the message too: db/availability.ts reads messages such as "connection closed".
    super(`The file store cannot be reached (${operation}).`);
    this.name = "StorageUnavailableError";
  }
}

export const STORAGE_UNAVAILABLE_MESSAGE =
  "Files are temporarily unavailable: the file store cannot be reached. Please try again in a few seconds.";
