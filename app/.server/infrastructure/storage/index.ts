import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createReadStream, openAsBlob } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { env } from "../config/env";

/**
 * Where Jumbe keeps the bytes of files (media uploads and what customers send): one interface, so a
 * bucket can take the place of the local disk without touching the callers (decision 023). Keys are
 * made here, never from user input: a file name or an id from a request cannot name a path.
 */
export interface FileStorage {
  /**
   * Writes `source` under a new key, all or nothing: the bytes go to a temporary file that becomes
   * the key only once complete. Past `maxBytes` the write stops, nothing is kept, and it throws
   * StorageLimitError. Answers the key, the size and the SHA-256 (hex) of what was written.
   */
  write(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, options: { maxBytes: number }): Promise<StoredFile>;
  /**
   * The bytes of a key as a stream (only `range`'s, first and last byte included, when given: an
   * HTTP Range request); StorageNotFoundError when there is no such file.
   */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** The bytes as a Blob read from storage when used (an upload's body), not held in memory. */
  blob(key: string, type: string): Promise<Blob>;
  /** Deletes the key; a key already gone is not an error. */
  delete(key: string): Promise<void>;
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

export class StorageNotFoundError extends Error {
  constructor(key: string) {
    super(`No stored file ${key}.`);
    this.name = "StorageNotFoundError";
  }
}

/** Keys this module makes: two hex characters of fan-out (256 folders), then a random UUID. */
const KEY = /^[0-9a-f]{2}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function newKey() {
  const id = randomUUID();
  return `${id.slice(0, 2)}/${id}`;
}

/** Files on the local disk under `root` (`${DATA_DIR}/media` by default). */
export function localFileStorage(root: string): FileStorage {
  const base = path.resolve(root);
  /** The file of a key; anything but a key this module made is refused before the disk is touched. */
  const fileOf = (key: string) => {
    if (!KEY.test(key)) throw new StorageNotFoundError(key.slice(0, 80));
    return path.join(base, key);
  };

  return {
    async write(source, { maxBytes }) {
      const key = newKey();
      const target = fileOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      // In the same folder, so the rename is atomic; a crash leaves only a `.part` file behind.
      const temporary = `${target}.${randomBytes(6).toString("hex")}.part`;
      const file = await open(temporary, "wx", 0o600);
      const hash = createHash("sha256");
      let size = 0;
      let kept = false;
      try {
        for await (const chunk of source) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new StorageLimitError(maxBytes);
          hash.update(chunk);
          await file.write(chunk);
        }
        await file.sync();
        await file.close();
        await rename(temporary, target);
        kept = true;
        return { key, size, sha256: hash.digest("hex") };
      } finally {
        if (!kept) {
          await file.close().catch(() => undefined);
          await rm(temporary, { force: true });
        }
      }
    },

    async read(key, range) {
      const file = fileOf(key);
      const found = await stat(file).catch(() => undefined);
      if (!found?.isFile()) throw new StorageNotFoundError(key);
      return createReadStream(file, range ? { start: range.start, end: range.end } : undefined);
    },

    async blob(key, type) {
      const file = fileOf(key);
      try {
        return await openAsBlob(file, { type });
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") throw new StorageNotFoundError(key);
        throw error;
      }
    },

    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}

let shared: { root: string; storage: FileStorage } | undefined;
let replaced: FileStorage | undefined;

/** Puts another storage in place of the configured one (tests: a temporary folder); undefined restores it. */
export function setFileStorage(storage: FileStorage | undefined) {
  replaced = storage;
}

/** The storage configured from the environment: `${DATA_DIR}/media`. */
export function fileStorage(): FileStorage {
  if (replaced) return replaced;
  const root = path.resolve(env().DATA_DIR, "media");
  if (shared?.root !== root) shared = { root, storage: localFileStorage(root) };
  return shared.storage;
}
