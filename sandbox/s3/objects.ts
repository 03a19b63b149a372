import { createWriteStream } from "node:fs";
import { open, unlink } from "node:fs/promises";
import type { ChecksumAlgorithm } from "./body";
import { drain, sendEmpty, sendXml, type S3Call } from "./call";
import { S3Error, errors, xmlElements, xmlUnescape } from "./errors";
import { MemorySink, receiveBody } from "./receive";
import type { ObjectMeta, StoredChecksum } from "./store";

/** PutObject, GetObject, HeadObject, DeleteObject and DeleteObjects, as S3 answers them. */

const STORED_HEADERS = ["content-disposition", "cache-control", "content-encoding", "content-language", "expires"];
const MAX_KEY_BYTES = 1024;
const MAX_SINGLE_PUT = 5 * 1024 ** 3;

export function requireBucket(call: S3Call) {
  if (!call.store.hasBucket(call.bucket)) throw errors.noSuchBucket(call.bucket);
}

/** What a PutObject or CreateMultipartUpload stores beside the bytes: content type, headers, x-amz-meta-*. */
export function describedBy(call: S3Call) {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    let value = call.headers[name];
    if (name === "content-encoding" && value !== undefined)
      value = value
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "aws-chunked" && v !== "")
        .join(", ");
    if (value) headers[name] = value;
  }
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) if (name.startsWith("x-amz-meta-")) metadata[name.slice(11)] = value;
  return { contentType: call.headers["content-type"] ?? "binary/octet-stream", headers, metadata };
}

export function checkKey(call: S3Call) {
  if (Buffer.byteLength(call.key) > MAX_KEY_BYTES) throw new S3Error(400, "KeyTooLongError", "Your key is too long");
}

const checksumHeaders = (checksum: StoredChecksum | undefined): Record<string, string> =>
  checksum ? { [`x-amz-checksum-${checksum.algorithm}`]: checksum.value, "x-amz-checksum-type": checksum.type } : {};

/** A received body's file, removed if the operation fails after receiving it. */
export async function receiveToFile(call: S3Call, compute: ChecksumAlgorithm[], limit: number) {
  const file = call.store.temporaryFile();
  try {
    const body = await receiveBody(call, { sink: createWriteStream(file), compute, requireLength: true, limit });
    return { file, body };
  } catch (error) {
    await unlink(file).catch(() => {});
    throw error;
  }
}

export async function putObject(call: S3Call) {
  requireBucket(call);
  checkKey(call);
  if (call.headers["x-amz-copy-source"] !== undefined) throw errors.notImplemented("CopyObject is not implemented by this sandbox.");
  const existing = call.store.getObject(call.bucket, call.key);
  if (call.headers["if-none-match"] === "*" && existing)
    throw new S3Error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", {
      Condition: "If-None-Match",
    });
  const { file, body } = await receiveToFile(call, ["crc32"], MAX_SINGLE_PUT);
  // Without a checksum from the client, the object's CRC32 is kept (S3 now keeps a CRC64NVME; see decision 160).
  const checksum: StoredChecksum = body.declared
    ? { algorithm: body.declared.algorithm, value: body.declared.value, type: "FULL_OBJECT" }
    : { algorithm: "crc32", value: body.checksums.crc32!, type: "FULL_OBJECT" };
  const etag = `"${body.md5.toString("hex")}"`;
  await call.store.putObject(call.bucket, file, {
    key: call.key,
    size: body.length,
    etag,
    lastModified: Date.now(),
    ...describedBy(call),
    checksum,
  });
  sendEmpty(call, 200, { ETag: etag, ...(body.declared ? checksumHeaders(checksum) : {}) });
}

interface ByteRange {
  start: number;
  end: number;
}

/**
 * `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` as S3 reads it: a range past the end is 416
 * InvalidRange; a header it cannot read (or several ranges) is ignored and the whole object sent.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  const invalid = () =>
    new S3Error(416, "InvalidRange", "The requested range is not satisfiable", { RangeRequested: header!, ActualObjectSize: size });
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) throw invalid();
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== "" && Number(match[2]) < start) return undefined;
  if (start >= size) throw invalid();
  return { start, end };
}

const RESPONSE_OVERRIDES: Record<string, string> = {
  "response-content-type": "Content-Type",
  "response-content-disposition": "Content-Disposition",
  "response-cache-control": "Cache-Control",
  "response-content-encoding": "Content-Encoding",
  "response-content-language": "Content-Language",
  "response-expires": "Expires",
};

function objectHeaders(call: S3Call, meta: ObjectMeta, whole: boolean) {
  const headers: Record<string, string | number> = {
    "Content-Type": meta.contentType,
    ETag: meta.etag,
    "Last-Modified": new Date(meta.lastModified).toUTCString(),
    "Accept-Ranges": "bytes",
  };
  for (const [name, value] of Object.entries(meta.headers)) headers[name] = value;
  for (const [name, value] of Object.entries(meta.metadata)) headers[`x-amz-meta-${name}`] = value;
  for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
    const value = call.query.get(param);
    if (value !== undefined) headers[header] = value;
  }
  // S3 sends an object's checksum when asked, and only for the whole object (not a range).
  if (whole && call.headers["x-amz-checksum-mode"]?.toUpperCase() === "ENABLED") Object.assign(headers, checksumHeaders(meta.checksum));
  return headers;
}

function checkConditions(call: S3Call, meta: ObjectMeta) {
  const ifMatch = call.headers["if-match"];
  if (ifMatch !== undefined && ifMatch !== "*" && !ifMatch.split(",").some((tag) => tag.trim() === meta.etag))
    throw new S3Error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", {
      Condition: "If-Match",
    });
  const ifNoneMatch = call.headers["if-none-match"];
  if (ifNoneMatch !== undefined && (ifNoneMatch === "*" || ifNoneMatch.split(",").some((tag) => tag.trim() === meta.etag)))
    throw new S3Error(304, "NotModified", "Not Modified");
}

/** Opens the object's current data file; a write that replaced it meanwhile makes us look again once. */
async function openObject(call: S3Call) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const meta = call.store.getObject(call.bucket, call.key);
    if (!meta) break;
    try {
      return { meta, handle: await open(call.store.objectPath(call.bucket, meta), "r") };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  throw errors.noSuchKey(call.key);
}

export async function getObject(call: S3Call) {
  requireBucket(call);
  if (call.query.has("partNumber")) throw errors.notImplemented("GetObject by partNumber is not implemented by this sandbox.");
  await receiveBody(call, { sink: new MemorySink(0) });
  const { meta, handle } = await openObject(call);
  try {
    checkConditions(call, meta);
    const range = parseRange(call.headers["range"], meta.size);
    const headers = objectHeaders(call, meta, range === undefined);
    if (range) {
      headers["Content-Range"] = `bytes ${range.start}-${range.end}/${meta.size}`;
      headers["Content-Length"] = range.end - range.start + 1;
    } else headers["Content-Length"] = meta.size;
    call.res.writeHead(range ? 206 : 200, headers);
    if (call.method === "HEAD" || meta.size === 0) {
      call.res.end();
      await handle.close();
      return;
    }
    const stream = handle.createReadStream({ start: range?.start ?? 0, end: range?.end ?? meta.size - 1, autoClose: true });
    stream.on("error", () => call.res.destroy());
    stream.pipe(call.res);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

export async function deleteObject(call: S3Call) {
  requireBucket(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  await call.store.deleteObject(call.bucket, call.key);
  sendEmpty(call, 204);
}

/** The text of each `<name>...</name>` directly in `xml`, unescaped. */
export function elements(xml: string, name: string) {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, "g"))].map((m) => xmlUnescape(m[1]!));
}

export async function deleteObjects(call: S3Call) {
  requireBucket(call);
  const hasChecksum =
    call.headers["content-md5"] !== undefined ||
    Object.keys(call.headers).some((name) => /^x-amz-checksum-(crc32|crc32c|sha1|sha256|crc64nvme)$/.test(name)) ||
    (call.headers["x-amz-trailer"] ?? "").startsWith("x-amz-checksum-");
  if (!hasChecksum) {
    await drain(call.req);
    throw errors.invalidRequest("Missing required header for this request: Content-MD5");
  }
  const sink = new MemorySink(2 * 1024 * 1024);
  await receiveBody(call, { sink });
  const xml = sink.text();
  if (!/<Delete[\s>][\s\S]*<\/Delete>/.test(xml)) throw errors.malformedXml();
  const objects = elements(xml, "Object");
  if (objects.length === 0 || objects.length > 1000) throw errors.malformedXml();
  const keys = objects.map((object) => {
    const key = elements(object, "Key")[0];
    if (key === undefined) throw errors.malformedXml();
    return key;
  });
  const quiet = elements(xml, "Quiet")[0]?.trim().toLowerCase() === "true";
  for (const key of keys) await call.store.deleteObject(call.bucket, key);
  const deleted = quiet ? "" : keys.map((key) => `<Deleted>${xmlElements({ Key: key })}</Deleted>`).join("");
  sendXml(call, 200, `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deleted}</DeleteResult>`);
}
