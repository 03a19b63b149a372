import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AwsChunkedDecoder, BodyDigests, CHECKSUM_ALGORITHMS, UNSUPPORTED_CHECKSUMS, type ChecksumAlgorithm } from "./body";
import type { S3Call } from "./call";
import { S3Error, errors } from "./errors";

/**
 * A request's body as S3 receives it: the payload mode of `x-amz-content-sha256` decides whether the
 * body is checked against its SHA-256, taken as it comes, or decoded from aws-chunked with a trailing
 * checksum; a flexible checksum (`x-amz-checksum-<algorithm>` header, query or trailer) and
 * `Content-MD5` are checked when present. The bytes stream to `sink` (a file for objects), never
 * whole in memory.
 */

const SIGNED_STREAMING = [
  "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
  "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
  "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD",
  "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER",
];
const UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
const CHECKSUM_HEADER = /^x-amz-checksum-([a-z0-9]+)$/;

export interface ReceivedBody {
  length: number;
  md5: Buffer;
  /** Every flexible checksum computed (the declared one and those asked for), base64. */
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
  /** The checksum the client sent (header, query or trailer), checked. */
  declared?: { algorithm: ChecksumAlgorithm; value: string };
}

function payloadMode(hash: string): "hex" | "unsigned" | "trailer" {
  if (/^[0-9a-f]{64}$/.test(hash)) return "hex";
  if (hash === "UNSIGNED-PAYLOAD") return "unsigned";
  if (hash === UNSIGNED_TRAILER) return "trailer";
  if (SIGNED_STREAMING.includes(hash))
    throw errors.notImplemented(
      `${hash} (signed chunks) is not implemented by this sandbox: the AWS SDK for JavaScript v3 never sends it; use ${UNSIGNED_TRAILER}, UNSIGNED-PAYLOAD or a hex SHA-256.`,
    );
  throw errors.invalidArgument(
    "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER, or a valid sha256 value.",
    "x-amz-content-sha256",
    hash,
  );
}

function algorithmOf(name: string): ChecksumAlgorithm {
  if ((CHECKSUM_ALGORITHMS as readonly string[]).includes(name)) return name as ChecksumAlgorithm;
  if (UNSUPPORTED_CHECKSUMS.includes(name))
    throw errors.notImplemented(`The ${name.toUpperCase()} checksum is not implemented by this sandbox.`);
  throw errors.invalidRequest(`Value for x-amz-checksum-algorithm header is invalid.`);
}

/** Where the client puts its flexible checksum: a header (or presigned query), a trailer, or nowhere. */
export function declaredChecksum(call: S3Call, mode: "hex" | "unsigned" | "trailer") {
  const inHeaders = Object.keys(call.headers).filter(
    (name) => CHECKSUM_HEADER.test(name) && !["x-amz-checksum-mode", "x-amz-checksum-algorithm", "x-amz-checksum-type"].includes(name),
  );
  const trailer = mode === "trailer" ? (call.headers["x-amz-trailer"] ?? "") : "";
  if (inHeaders.length + (trailer === "" ? 0 : 1) > 1)
    throw errors.invalidRequest("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.");
  const sdkAlgorithm = call.headers["x-amz-sdk-checksum-algorithm"];
  if (inHeaders.length === 1) {
    const name = inHeaders[0]!;
    const algorithm = algorithmOf(CHECKSUM_HEADER.exec(name)![1]!);
    if (sdkAlgorithm && sdkAlgorithm.toLowerCase() !== algorithm)
      throw errors.invalidRequest(`Value for x-amz-sdk-checksum-algorithm header is invalid.`);
    return { algorithm, header: name, where: "header" as const };
  }
  if (trailer !== "") {
    const match = CHECKSUM_HEADER.exec(trailer.toLowerCase());
    if (!match) throw errors.invalidRequest("The value specified in the x-amz-trailer header is not supported");
    return { algorithm: algorithmOf(match[1]!), header: trailer.toLowerCase(), where: "trailer" as const };
  }
  if (sdkAlgorithm)
    throw errors.invalidRequest(
      "x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.",
    );
  return undefined;
}

/** Collects a small body (an XML document) in memory, refusing more than `limit` bytes. */
export class MemorySink extends Writable {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.size += chunk.length;
    if (this.size > this.limit) return done(new S3Error(400, "MaxMessageLengthExceeded", "Your request was too big."));
    this.chunks.push(chunk);
    done();
  }

  text() {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

function checkLength(call: S3Call, mode: "hex" | "unsigned" | "trailer", requireLength: boolean) {
  if (mode === "trailer") {
    const decoded = call.headers["x-amz-decoded-content-length"];
    if (decoded === undefined || !/^\d+$/.test(decoded))
      throw new S3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
    return Number(decoded);
  }
  if (requireLength && call.headers["content-length"] === undefined)
    throw new S3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
  return undefined;
}

function checkMd5(call: S3Call, md5: Buffer) {
  const given = call.headers["content-md5"];
  if (given === undefined) return;
  const decoded = Buffer.from(given, "base64");
  if (decoded.length !== 16 || decoded.toString("base64") !== given)
    throw new S3Error(400, "InvalidDigest", "The Content-MD5 you specified was invalid.");
  if (!decoded.equals(md5)) throw new S3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
}

async function stream(call: S3Call, stages: [Writable, ...Writable[]]) {
  const [first] = stages;
  const aborted = new Promise<never>((_resolve, reject) => {
    call.req.once("aborted", () => reject(new S3Error(400, "IncompleteBody", "The request body terminated unexpectedly")));
  });
  call.req.pipe(first);
  try {
    await Promise.race([(pipeline as unknown as (streams: Writable[]) => Promise<void>)(stages), aborted]);
  } catch (error) {
    first.destroy();
    throw error;
  } finally {
    call.req.unpipe(first);
  }
}

export interface ReceiveOptions {
  sink: Writable;
  /** Checksums to compute besides the declared one (the object's CRC32, an upload's algorithm). */
  compute?: ChecksumAlgorithm[];
  /** PutObject and UploadPart need a Content-Length (or aws-chunked's decoded length). */
  requireLength?: boolean;
  limit?: number;
}

// The checks S3 makes of a body, in the order of its stages: mode and length before, hashes after.
export async function receiveBody(call: S3Call, options: ReceiveOptions): Promise<ReceivedBody> {
  const mode = payloadMode(call.verified.payloadHash);
  const decodedLength = checkLength(call, mode, options.requireLength ?? false);
  const declared = declaredChecksum(call, mode);
  const digests = new BodyDigests([...(options.compute ?? []), ...(declared ? [declared.algorithm] : [])], options.limit);
  const decoder = mode === "trailer" ? new AwsChunkedDecoder() : undefined;
  await stream(call, decoder ? [decoder, digests, options.sink] : [digests, options.sink]);
  const results = digests.results!;
  if (mode === "hex" && results.sha256Hex !== call.verified.payloadHash)
    throw new S3Error(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", {
      ClientComputedContentSHA256: call.verified.payloadHash,
      S3ComputedContentSHA256: results.sha256Hex,
    });
  if (decodedLength !== undefined && decodedLength !== digests.length)
    throw new S3Error(400, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header");
  checkMd5(call, results.md5);
  let declaredValue: { algorithm: ChecksumAlgorithm; value: string } | undefined;
  if (declared) {
    const value = declared.where === "trailer" ? decoder!.trailers.get(declared.header) : call.headers[declared.header];
    if (value === undefined)
      throw new S3Error(
        400,
        "MalformedTrailerError",
        "The request contained trailing data that was not well-formed or did not conform to our published schema.",
      );
    if (value !== results.checksums[declared.algorithm]) throw errors.badDigest(declared.algorithm.toUpperCase());
    declaredValue = { algorithm: declared.algorithm, value };
  }
  return { length: digests.length, md5: results.md5, checksums: results.checksums, declared: declaredValue };
}
