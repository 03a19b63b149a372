import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { GetObjectCommand, HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { isStorageKey } from "./keys";
import { storageError } from "./s3";

export interface MigrationReport {
  /** Files under the folder with the shape of a storage key. */
  found: number;
  copied: number;
  /** Already in the bucket with the same size and SHA-256 (a run resumed). */
  skipped: number;
  /** Copied but not read back the same, or not copied: named in `failures`. */
  failed: number;
  /** Anything else in the folder (`.part` files of writes cut off, stray files): left alone. */
  ignored: number;
  bytes: number;
  failures: { key: string; reason: string }[];
}

/**
 * Copies the local storage folder into a bucket under the same keys (the rows name them), one file
 * at a time: a key already there with the same size and SHA-256 is skipped, so a run cut off
 * resumes where it stopped; every copy is read back and hashed before it counts (decision 161).
 */
export async function migrateFolderToBucket(
  root: string,
  target: { client: S3Client; bucket: string },
  progress: (key: string, outcome: "copied" | "skipped" | "failed") => void = () => undefined,
): Promise<MigrationReport> {
  const report: MigrationReport = { found: 0, copied: 0, skipped: 0, failed: 0, ignored: 0, bytes: 0, failures: [] };
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(root, file).split(path.sep).join("/");
    if (!isStorageKey(key)) {
      report.ignored++;
      continue;
    }
    report.found++;
    let outcome: "copied" | "skipped" | "failed";
    try {
      outcome = await migrateOne(file, key, target, report);
    } catch (error) {
      const reason = storageError("migrate", key, error).message;
      report.failures.push({ key, reason: error instanceof Error && "detail" in error ? `${reason} ${String(error.detail)}` : reason });
      outcome = "failed";
    }
    report[outcome]++;
    progress(key, outcome);
  }
  return report;
}

async function migrateOne(file: string, key: string, { client, bucket }: { client: S3Client; bucket: string }, report: MigrationReport) {
  const local = await digest(createReadStream(file));
  const there = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).catch((error: unknown) => {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
    throw error;
  });
  if (there?.ContentLength === local.size && (await remoteDigest(client, bucket, key)).sha256 === local.sha256) return "skipped";
  await new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: createReadStream(file), Metadata: { sha256: local.sha256 } },
    leavePartsOnError: false,
  }).done();
  const copy = await remoteDigest(client, bucket, key);
  if (copy.size !== local.size || copy.sha256 !== local.sha256) {
    report.failures.push({
      key,
      reason: `read back ${copy.size} bytes, SHA-256 ${copy.sha256}; the file has ${local.size}, ${local.sha256}`,
    });
    return "failed";
  }
  report.bytes += local.size;
  return "copied";
}

async function remoteDigest(client: S3Client, bucket: string, key: string) {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return digest(object.Body as Readable);
}

async function digest(stream: AsyncIterable<Uint8Array>) {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    hash.update(chunk);
  }
  return { size, sha256: hash.digest("hex") };
}
