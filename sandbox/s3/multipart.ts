import { createHash } from "node:crypto";
import { unlink } from "node:fs/promises";
import { Checksum, CHECKSUM_ALGORITHMS, type ChecksumAlgorithm } from "./body";
import { sendEmpty, sendXml, type S3Call } from "./call";
import { S3Error, errors, xmlElements } from "./errors";
import { checkKey, describedBy, elements, receiveToFile, requireBucket } from "./objects";
import { MemorySink, receiveBody } from "./receive";
import type { UploadMeta } from "./store";

/** CreateMultipartUpload, UploadPart, CompleteMultipartUpload and AbortMultipartUpload. */

export const MIN_PART_SIZE = 5 * 1024 * 1024;
const MAX_PART_SIZE = 5 * 1024 ** 3;
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const checksumElement = (algorithm: ChecksumAlgorithm) => `Checksum${algorithm.toUpperCase()}`;

function uploadOf(call: S3Call): UploadMeta {
  const uploadId = call.query.get("uploadId") ?? "";
  const upload = call.store.getUpload(uploadId);
  if (!upload || upload.bucket !== call.bucket || upload.key !== call.key || upload.completing) throw errors.noSuchUpload(uploadId);
  return upload;
}

export async function createMultipartUpload(call: S3Call) {
  requireBucket(call);
  checkKey(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  const named = call.headers["x-amz-checksum-algorithm"]?.toLowerCase();
  if (named !== undefined && !(CHECKSUM_ALGORITHMS as readonly string[]).includes(named)) {
    if (named === "crc64nvme") throw errors.notImplemented("The CRC64NVME checksum is not implemented by this sandbox.");
    throw errors.invalidRequest(
      "Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]",
    );
  }
  if (call.headers["x-amz-checksum-type"]?.toUpperCase() === "FULL_OBJECT")
    throw errors.notImplemented("Full-object multipart checksums are not implemented by this sandbox: composite only.");
  const upload = await call.store.createUpload({
    bucket: call.bucket,
    key: call.key,
    ...describedBy(call),
    checksumAlgorithm: named as ChecksumAlgorithm | undefined,
  });
  const headers: Record<string, string> = upload.checksumAlgorithm
    ? { "x-amz-checksum-algorithm": upload.checksumAlgorithm.toUpperCase(), "x-amz-checksum-type": "COMPOSITE" }
    : {};
  sendXml(
    call,
    200,
    `<InitiateMultipartUploadResult ${NS}>${xmlElements({ Bucket: call.bucket, Key: call.key, UploadId: upload.uploadId })}</InitiateMultipartUploadResult>`,
    headers,
  );
}

export async function uploadPart(call: S3Call) {
  requireBucket(call);
  const upload = uploadOf(call);
  const numberText = call.query.get("partNumber") ?? "";
  const partNumber = /^\d+$/.test(numberText) ? Number(numberText) : NaN;
  if (!(partNumber >= 1 && partNumber <= 10000))
    throw errors.invalidArgument("Part number must be an integer between 1 and 10000, inclusive", "partNumber", numberText);
  if (call.headers["x-amz-copy-source"] !== undefined) throw errors.notImplemented("UploadPartCopy is not implemented by this sandbox.");
  const { file, body } = await receiveToFile(call, upload.checksumAlgorithm ? [upload.checksumAlgorithm] : [], MAX_PART_SIZE);
  try {
    if (body.declared && upload.checksumAlgorithm && body.declared.algorithm !== upload.checksumAlgorithm)
      throw errors.invalidRequest(
        `Checksum Type mismatch occurred, expected checksum Type: ${upload.checksumAlgorithm}, actual checksum Type: ${body.declared.algorithm}`,
      );
    if (uploadOf(call) !== upload) throw errors.noSuchUpload(upload.uploadId);
  } catch (error) {
    await unlink(file).catch(() => {});
    throw error;
  }
  const md5Hex = body.md5.toString("hex");
  const checksum = upload.checksumAlgorithm ? body.checksums[upload.checksumAlgorithm] : undefined;
  await call.store.putPart(upload, file, {
    partNumber,
    size: body.length,
    etag: `"${md5Hex}"`,
    md5Hex,
    checksum,
    lastModified: Date.now(),
  });
  sendEmpty(call, 200, {
    ETag: `"${md5Hex}"`,
    ...(checksum && upload.checksumAlgorithm ? { [`x-amz-checksum-${upload.checksumAlgorithm}`]: checksum } : {}),
  });
}

interface ListedPart {
  partNumber: number;
  etag: string;
  checksum?: string;
}

function listedParts(xml: string, upload: UploadMeta): ListedPart[] {
  if (!/<CompleteMultipartUpload[\s>][\s\S]*<\/CompleteMultipartUpload>/.test(xml)) throw errors.malformedXml();
  const parts = elements(xml, "Part").map((part) => {
    const number = elements(part, "PartNumber")[0]?.trim() ?? "";
    const etag = elements(part, "ETag")[0]?.trim();
    if (!/^\d+$/.test(number) || etag === undefined) throw errors.malformedXml();
    const checksum = upload.checksumAlgorithm ? elements(part, checksumElement(upload.checksumAlgorithm))[0]?.trim() : undefined;
    return { partNumber: Number(number), etag: etag.startsWith('"') ? etag : `"${etag}"`, checksum };
  });
  if (parts.length === 0)
    throw new S3Error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema");
  return parts;
}

const invalidPart = (part: ListedPart) =>
  new S3Error(
    400,
    "InvalidPart",
    "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
    { PartNumber: part.partNumber, ETag: part.etag },
  );

/** S3's checks of the list, in its order: ascending numbers, each part there with its ETag, each but the last ≥ 5 MiB. */
function checkParts(upload: UploadMeta, parts: ListedPart[]) {
  for (let i = 1; i < parts.length; i++)
    if (parts[i]!.partNumber <= parts[i - 1]!.partNumber)
      throw new S3Error(400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number.", {
        UploadId: upload.uploadId,
      });
  for (const part of parts) {
    const stored = upload.parts[part.partNumber];
    if (!stored || stored.etag !== part.etag || (part.checksum !== undefined && part.checksum !== stored.checksum)) throw invalidPart(part);
  }
  parts.slice(0, -1).forEach((part) => {
    const stored = upload.parts[part.partNumber]!;
    if (stored.size < MIN_PART_SIZE)
      throw new S3Error(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.", {
        ProposedSize: stored.size,
        MinSizeAllowed: MIN_PART_SIZE,
        PartNumber: part.partNumber,
        ETag: part.etag,
      });
  });
}

export async function completeMultipartUpload(call: S3Call) {
  requireBucket(call);
  const upload = uploadOf(call);
  const sink = new MemorySink(1024 * 1024);
  await receiveBody(call, { sink });
  const parts = listedParts(sink.text(), upload);
  checkParts(upload, parts);
  if (upload.completing) throw errors.noSuchUpload(upload.uploadId);
  upload.completing = true;
  const stored = parts.map((part) => upload.parts[part.partNumber]!);
  const md5s = Buffer.concat(stored.map((part) => Buffer.from(part.md5Hex, "hex")));
  const etag = `"${createHash("md5").update(md5s).digest("hex")}-${parts.length}"`;
  const algorithm = upload.checksumAlgorithm;
  const checksum = algorithm
    ? {
        algorithm,
        value: `${Checksum.of(algorithm, Buffer.concat(stored.map((part) => Buffer.from(part.checksum!, "base64"))))}-${parts.length}`,
        type: "COMPOSITE" as const,
      }
    : undefined;
  try {
    const file = await call.store.concatenateParts(
      upload,
      parts.map((part) => part.partNumber),
    );
    const size = stored.reduce((sum, part) => sum + part.size, 0);
    const { contentType, headers, metadata } = upload;
    await call.store.putObject(call.bucket, file, {
      key: call.key,
      size,
      etag,
      lastModified: Date.now(),
      contentType,
      headers,
      metadata,
      checksum,
    });
  } catch (error) {
    upload.completing = false;
    throw error;
  }
  await call.store.deleteUpload(upload.uploadId);
  const checksumXml = checksum ? xmlElements({ [checksumElement(checksum.algorithm)]: checksum.value, ChecksumType: "COMPOSITE" }) : "";
  sendXml(
    call,
    200,
    `<CompleteMultipartUploadResult ${NS}>${xmlElements({ Location: call.url, Bucket: call.bucket, Key: call.key, ETag: etag })}${checksumXml}</CompleteMultipartUploadResult>`,
  );
}

export async function abortMultipartUpload(call: S3Call) {
  requireBucket(call);
  const upload = uploadOf(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  await call.store.deleteUpload(upload.uploadId);
  sendEmpty(call, 204);
}
