import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { ChecksumAlgorithm } from "./body";

/**
 * The sandbox's buckets on disk: every object's bytes in a file of its own (a new file for each
 * write, renamed into place, so a read that has opened the old one finishes it), its description in
 * a JSON file beside it, and an index of both in memory, read back from the directory at start.
 *
 *   <dir>/buckets/<bucket>/bucket.json
 *   <dir>/buckets/<bucket>/objects/<sha256 of key>.json, <sha256 of key>-<random>.data
 *   <dir>/uploads/<upload id>/upload.json, <part>.json, <part>.data
 *   <dir>/tmp/  bodies being received
 */

export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  /** Base64; a composite (multipart) checksum ends in `-<parts>`. */
  value: string;
  type: "FULL_OBJECT" | "COMPOSITE";
}

export interface ObjectMeta {
  key: string;
  /** The data file's name in the bucket's objects directory. */
  file: string;
  size: number;
  /** With its quotes, as S3 sends it. */
  etag: string;
  lastModified: number;
  contentType: string;
  /** Content-Disposition, Cache-Control, Content-Encoding, Content-Language, Expires as stored. */
  headers: Record<string, string>;
  /** x-amz-meta-* */
  metadata: Record<string, string>;
  checksum?: StoredChecksum;
}

export interface PartMeta {
  partNumber: number;
  size: number;
  etag: string;
  md5Hex: string;
  /** The upload's checksum of this part (base64), when the upload has an algorithm. */
  checksum?: string;
  lastModified: number;
}

export interface UploadMeta {
  uploadId: string;
  bucket: string;
  key: string;
  initiated: number;
  contentType: string;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  checksumAlgorithm?: ChecksumAlgorithm;
  parts: Record<number, PartMeta>;
  completing?: boolean;
}

interface Bucket {
  created: number;
  objects: Map<string, ObjectMeta>;
}

const keyHash = (key: string) => createHash("sha256").update(key).digest("hex");
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;

async function writeJsonAtomically(file: string, value: unknown) {
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temporary, JSON.stringify(value));
  await rename(temporary, file);
}

export class DiskStore {
  private buckets = new Map<string, Bucket>();
  private uploads = new Map<string, UploadMeta>();

  constructor(readonly dir: string) {
    for (const sub of ["buckets", "uploads", "tmp"]) mkdirSync(path.join(dir, sub), { recursive: true });
    rmSync(path.join(dir, "tmp"), { recursive: true, force: true });
    mkdirSync(path.join(dir, "tmp"));
    this.load();
  }

  private load() {
    for (const name of readdirSync(path.join(this.dir, "buckets"))) {
      const bucketDir = path.join(this.dir, "buckets", name);
      const { created } = readJson<{ created: number }>(path.join(bucketDir, "bucket.json"));
      const objects = new Map<string, ObjectMeta>();
      for (const file of readdirSync(path.join(bucketDir, "objects")).filter((f) => f.endsWith(".json"))) {
        const meta = readJson<ObjectMeta>(path.join(bucketDir, "objects", file));
        objects.set(meta.key, meta);
      }
      this.buckets.set(name, { created, objects });
    }
    for (const id of readdirSync(path.join(this.dir, "uploads"))) {
      const uploadDir = path.join(this.dir, "uploads", id);
      const upload = readJson<UploadMeta>(path.join(uploadDir, "upload.json"));
      for (const file of readdirSync(uploadDir).filter((f) => /^\d+\.json$/.test(f))) {
        const part = readJson<PartMeta>(path.join(uploadDir, file));
        upload.parts[part.partNumber] = part;
      }
      this.uploads.set(id, { ...upload, completing: false });
    }
  }

  /** A fresh path under tmp/ for a body being received. */
  temporaryFile() {
    return path.join(this.dir, "tmp", randomBytes(12).toString("hex"));
  }

  bucketNames() {
    return [...this.buckets.entries()]
      .map(([name, bucket]) => ({ name, created: bucket.created }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  hasBucket(name: string) {
    return this.buckets.has(name);
  }

  async createBucket(name: string) {
    const bucketDir = path.join(this.dir, "buckets", name);
    await mkdir(path.join(bucketDir, "objects"), { recursive: true });
    const created = Date.now();
    await writeJsonAtomically(path.join(bucketDir, "bucket.json"), { created });
    this.buckets.set(name, { created, objects: new Map() });
  }

  /** At start, before any request: the configured buckets. */
  createBucketSync(name: string) {
    const bucketDir = path.join(this.dir, "buckets", name);
    mkdirSync(path.join(bucketDir, "objects"), { recursive: true });
    const created = Date.now();
    writeFileSync(path.join(bucketDir, "bucket.json"), JSON.stringify({ created }));
    this.buckets.set(name, { created, objects: new Map() });
  }

  /** False when the bucket holds objects or unfinished uploads (S3's BucketNotEmpty). */
  async deleteBucket(name: string) {
    const bucket = this.buckets.get(name);
    if (!bucket) return true;
    if (bucket.objects.size > 0 || [...this.uploads.values()].some((u) => u.bucket === name)) return false;
    this.buckets.delete(name);
    await rm(path.join(this.dir, "buckets", name), { recursive: true, force: true });
    return true;
  }

  /** The bucket's objects sorted by key as S3 lists them (UTF-8 byte order). */
  sortedObjects(bucket: string): ObjectMeta[] {
    const objects = [...(this.buckets.get(bucket)?.objects.values() ?? [])];
    return objects.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  }

  getObject(bucket: string, key: string) {
    return this.buckets.get(bucket)?.objects.get(key);
  }

  objectPath(bucket: string, meta: ObjectMeta) {
    return path.join(this.dir, "buckets", bucket, "objects", meta.file);
  }

  /** Moves a received body (a file under tmp/) into place as the object's new version. */
  async putObject(bucket: string, received: string, meta: Omit<ObjectMeta, "file">) {
    const objects = this.buckets.get(bucket)!.objects;
    const hash = keyHash(meta.key);
    const file = `${hash}-${randomBytes(6).toString("hex")}.data`;
    const objectsDir = path.join(this.dir, "buckets", bucket, "objects");
    await rename(received, path.join(objectsDir, file));
    const stored: ObjectMeta = { ...meta, file };
    await writeJsonAtomically(path.join(objectsDir, `${hash}.json`), stored);
    const previous = objects.get(meta.key);
    objects.set(meta.key, stored);
    if (previous) await unlink(path.join(objectsDir, previous.file)).catch(() => {});
    return stored;
  }

  async deleteObject(bucket: string, key: string) {
    const objects = this.buckets.get(bucket)?.objects;
    const meta = objects?.get(key);
    if (!objects || !meta) return;
    objects.delete(key);
    const objectsDir = path.join(this.dir, "buckets", bucket, "objects");
    await unlink(path.join(objectsDir, `${keyHash(key)}.json`)).catch(() => {});
    await unlink(path.join(objectsDir, meta.file)).catch(() => {});
  }

  async createUpload(upload: Omit<UploadMeta, "uploadId" | "parts" | "initiated">) {
    const uploadId = randomBytes(24).toString("base64url");
    const meta: UploadMeta = { ...upload, uploadId, initiated: Date.now(), parts: {} };
    await mkdir(path.join(this.dir, "uploads", uploadId));
    await writeJsonAtomically(path.join(this.dir, "uploads", uploadId, "upload.json"), { ...meta, parts: {} });
    this.uploads.set(uploadId, meta);
    return meta;
  }

  getUpload(uploadId: string) {
    return this.uploads.get(uploadId);
  }

  async putPart(upload: UploadMeta, received: string, part: PartMeta) {
    const uploadDir = path.join(this.dir, "uploads", upload.uploadId);
    await rename(received, path.join(uploadDir, `${part.partNumber}.data`));
    await writeJsonAtomically(path.join(uploadDir, `${part.partNumber}.json`), part);
    upload.parts[part.partNumber] = part;
  }

  async deleteUpload(uploadId: string) {
    this.uploads.delete(uploadId);
    await rm(path.join(this.dir, "uploads", uploadId), { recursive: true, force: true });
  }

  /** The chosen parts' bytes one after another into a new file under tmp/, one part open at a time. */
  async concatenateParts(upload: UploadMeta, partNumbers: number[]) {
    const target = this.temporaryFile();
    const out = createWriteStream(target);
    for (const number of partNumbers)
      await pipeline(createReadStream(path.join(this.dir, "uploads", upload.uploadId, `${number}.data`)), out, { end: false });
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return target;
  }
}
