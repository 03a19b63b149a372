import { createHash, randomBytes } from "node:crypto";
import { createReadStream, openAsBlob } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { checkedKey, newKey, organisationPrefix, StorageNotFoundError } from "./keys";
import { StorageLimitError, type FileStorage, type StoredFile, type WriteOptions } from "./types";

/** Files on the local disk under `root` (`${DATA_DIR}/media` by default). */
export function localFileStorage(root: string): FileStorage {
  const base = path.resolve(root);
  /** The file of a key; anything but a key this module made is refused before the disk is touched. */
  const fileOf = (key: string) => path.join(base, checkedKey(key));

  return {
    write: (source, options) => writeLocal(fileOf(newKey(options.organisationId)), base, source, options),

    async read(key, range) {
      const file = fileOf(key);
      const found = await stat(file).catch(() => undefined);
      if (!found?.isFile()) throw new StorageNotFoundError(key);
      return createReadStream(file, range ? { start: range.start, end: range.end } : undefined);
    },

    async withBlob(key, type, consume) {
      const file = fileOf(key);
      let blob;
      try {
        blob = await openAsBlob(file, { type });
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") throw new StorageNotFoundError(key);
        throw error;
      }
      return consume(blob);
    },

    async delete(key) {
      await rm(fileOf(key), { force: true });
    },

    async deleteOrganisation(organisationId) {
      const folder = path.join(base, organisationPrefix(organisationId));
      const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
      await rm(folder, { recursive: true, force: true });
      return entries.filter((entry) => entry.isFile()).length;
    },

    downloadUrl: async () => null,
  };
}

/** Streams `source` into a temporary file beside `target`, counting and hashing, renamed into place only when complete. */
async function writeLocal(
  target: string,
  base: string,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  { maxBytes }: WriteOptions,
): Promise<StoredFile> {
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
    return { key: path.relative(base, target).split(path.sep).join("/"), size, sha256: hash.digest("hex") };
  } finally {
    if (!kept) {
      await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
    }
  }
}
