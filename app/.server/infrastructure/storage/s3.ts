import { createHash } from "node:crypto";
import { createWriteStream, openAsBlob } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { checkedKey, newKey, organisationPrefix, StorageNotFoundError } from "./keys";
import { StorageLimitError, StorageUnavailableError, type FileStorage, type StoredFile, type WriteOptions } from "./types";
import { NETWORK_ERROR_CODES } from "../network-errors";

export interface S3StorageConfig {
  /** Unset: AWS itself (the region's endpoint). */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Unset: the SDK's own chain (environment, shared files, an instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `http://host/bucket/key` rather than `http://bucket.host/key` (MinIO, Ceph, most self-hosted stores). */
  forcePathStyle: boolean;
  /** The SDK's CRC checksums on every request (AWS), or only where S3 requires one (stores that refuse them). */
  checksums: "when_supported" | "when_required";
  downloads: "stream" | "redirect";
  presignSeconds: number;
  /** How long one connection attempt or an idle socket may take before the try fails (the SDK retries twice). */
  timeoutMs: number;
}

/** Parts of a multipart upload: S3's smallest, so at most QUEUE of them are held at once (about 20 MB). */
const PART_BYTES = 5 * 1024 * 1024;
const QUEUE = 4;
/** Deletions of an organisation's objects in flight at once. */
const DELETE_CONCURRENCY = 8;

/** The SDK's client for these settings (decision 161, reference §5.1-5.2). */
export function s3Client(config: S3StorageConfig): S3Client {
  const checksums = config.checksums === "when_supported" ? "WHEN_SUPPORTED" : "WHEN_REQUIRED";
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    requestChecksumCalculation: checksums,
    responseChecksumValidation: checksums,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: config.timeoutMs, requestTimeout: config.timeoutMs },
  });
}

/**
 * What an SDK error means to the callers: a missing object is StorageNotFoundError; anything from
 * the store or the network on the way to it (connection refused, timeouts, 5xx and SlowDown after
 * the SDK's retries, a missing bucket, refused credentials) is StorageUnavailableError; anything
 * else (a programming error) stays itself.
 */
export function storageError(operation: string, key: string | undefined, error: unknown): Error {
  if (error instanceof StorageNotFoundError || error instanceof StorageLimitError || error instanceof StorageUnavailableError) return error;
  const e = (error ?? {}) as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (key && (e.name === "NoSuchKey" || (e.name === "NotFound" && status === 404))) return new StorageNotFoundError(key);
  const fromStore = error instanceof S3ServiceException || status !== undefined;
  const network = NETWORK_ERROR_CODES.has(e.code ?? "") || e.name === "TimeoutError" || e.name === "RequestTimeout";
  if (fromStore || network)
    return new StorageUnavailableError(operation, `${e.name ?? "Error"}${status ? ` ${status}` : ""}: ${e.message ?? ""}`.slice(0, 300));
  return error instanceof Error ? error : new Error(String(error));
}

/** Files as objects of an S3-compatible bucket, through one client per storage (one per process: fileStorage()). */
export function s3FileStorage(config: S3StorageConfig): FileStorage & { client: S3Client; bucket: string } {
  const client = s3Client(config);
  const Bucket = config.bucket;
  const storage = {
    client,
    bucket: Bucket,
    write: (source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, options: WriteOptions) => writeS3(client, Bucket, source, options),

    async read(key: string, range?: { start: number; end: number }) {
      try {
        const found = await client.send(
          new GetObjectCommand({ Bucket, Key: checkedKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        );
        if (!(found.Body instanceof Readable)) throw new StorageUnavailableError("read", "the store answered without a body");
        return found.Body;
      } catch (error) {
        throw storageError("read", key, error);
      }
    },

    async withBlob<T>(key: string, type: string, consume: (blob: Blob) => Promise<T>): Promise<T> {
      // A Blob the runtime can send (FormData takes only its own Blobs): the object copied to a
      // temporary file first, streamed, then the file read as it is sent and removed after.
      const folder = await mkdtemp(path.join(os.tmpdir(), "jumbe-blob-"));
      try {
        const file = path.join(folder, "object");
        await pipeline(await storage.read(key), createWriteStream(file, { mode: 0o600 })).catch((error: unknown) => {
          throw storageError("read", key, error);
        });
        return await consume(await openAsBlob(file, { type }));
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },

    async delete(key: string) {
      try {
        // S3 answers 204 for a key that is not there.
        await client.send(new DeleteObjectCommand({ Bucket, Key: checkedKey(key) }));
      } catch (error) {
        throw storageError("delete", key, error);
      }
    },

    deleteOrganisation: (organisationId: string) => deletePrefix(client, Bucket, organisationPrefix(organisationId)),

    async downloadUrl(key: string, answer: { contentType: string; contentDisposition: string }) {
      if (config.downloads !== "redirect") return null;
      const command = new GetObjectCommand({
        Bucket,
        Key: checkedKey(key),
        ResponseContentType: answer.contentType,
        ResponseContentDisposition: answer.contentDisposition,
        ResponseCacheControl: "private, no-store",
      });
      return getSignedUrl(client, command, { expiresIn: config.presignSeconds });
    },
  };
  return storage;
}

/**
 * Streams `source` into a new object through lib-storage's Upload (one PutObject up to a part,
 * multipart beyond), counting and hashing on the way. Past the cap, or when the source fails, the
 * multipart upload is aborted (Upload's leavePartsOnError: false) and the key deleted in case a
 * single PutObject got through: nothing is kept. The source's own error is thrown as it was.
 */
async function writeS3(
  client: S3Client,
  Bucket: string,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  { maxBytes, organisationId, contentType }: WriteOptions,
): Promise<StoredFile> {
  const key = newKey(organisationId);
  const hash = createHash("sha256");
  let size = 0;
  let sourceError: unknown;
  async function* counted() {
    try {
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new StorageLimitError(maxBytes);
        hash.update(chunk);
        yield chunk;
      }
    } catch (error) {
      sourceError = error;
      throw error;
    }
  }
  const upload = new Upload({
    client,
    params: { Bucket, Key: key, Body: Readable.from(counted()), ContentType: contentType ?? "application/octet-stream" },
    partSize: PART_BYTES,
    queueSize: QUEUE,
    leavePartsOnError: false,
  });
  try {
    await upload.done();
  } catch (error) {
    await client.send(new DeleteObjectCommand({ Bucket, Key: key })).catch(() => undefined);
    throw sourceError ?? storageError("write", undefined, error);
  }
  return { key, size, sha256: hash.digest("hex") };
}

/** Lists and deletes every object under `prefix`, one DeleteObject each (DeleteObjects needs Content-MD5 on some stores: §5.2). */
async function deletePrefix(client: S3Client, Bucket: string, prefix: string): Promise<number> {
  let deleted = 0;
  let token: string | undefined;
  try {
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }));
      const keys = (page.Contents ?? []).map((object) => object.Key).filter((key): key is string => !!key);
      for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY)
        await Promise.all(keys.slice(i, i + DELETE_CONCURRENCY).map((Key) => client.send(new DeleteObjectCommand({ Bucket, Key }))));
      deleted += keys.length;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  } catch (error) {
    throw storageError("delete", undefined, error);
  }
  return deleted;
}
