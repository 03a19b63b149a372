import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { crc32 } from "node:zlib";
import { S3Error } from "./errors";

/**
 * What S3 computes of a body while it streams: its length, MD5 (the ETag), SHA-256 (against
 * `x-amz-content-sha256`) and the flexible checksum the client names (CRC32 by default in the SDK).
 * Written from the algorithms' definitions; CRC32 is zlib's.
 */

export type ChecksumAlgorithm = "crc32" | "crc32c" | "sha1" | "sha256";
export const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = ["crc32", "crc32c", "sha1", "sha256"];
/** Flexible checksums S3 knows but this sandbox does not compute: refused with NotImplemented, never ignored. */
export const UNSUPPORTED_CHECKSUMS = ["crc64nvme"];

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32c(data: Uint8Array, previous = 0) {
  let crc = ~previous >>> 0;
  for (const byte of data) crc = CRC32C_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

const u32 = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
};

/** A running checksum of one algorithm, its result base64 as S3's `x-amz-checksum-*` headers carry it. */
export class Checksum {
  private crc = 0;
  private hash: Hash | undefined;

  constructor(readonly algorithm: ChecksumAlgorithm) {
    if (algorithm === "sha1" || algorithm === "sha256") this.hash = createHash(algorithm);
  }

  update(data: Buffer) {
    if (this.hash) this.hash.update(data);
    else this.crc = this.algorithm === "crc32" ? crc32(data, this.crc) : crc32c(data, this.crc);
  }

  digest(): Buffer {
    return this.hash ? this.hash.digest() : u32(this.crc);
  }

  static of(algorithm: ChecksumAlgorithm, data: Buffer) {
    const checksum = new Checksum(algorithm);
    checksum.update(data);
    return checksum.digest().toString("base64");
  }
}

/** Passes a body through unchanged, computing its length, MD5, SHA-256 and the flexible checksums asked for. */
export class BodyDigests extends Transform {
  length = 0;
  private md5 = createHash("md5");
  private sha256 = createHash("sha256");
  private checksums: Checksum[];
  results: { md5: Buffer; sha256Hex: string; checksums: Partial<Record<ChecksumAlgorithm, string>> } | undefined;

  constructor(
    algorithms: ChecksumAlgorithm[],
    private readonly limit = Infinity,
  ) {
    super();
    this.checksums = [...new Set(algorithms)].map((algorithm) => new Checksum(algorithm));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.length += chunk.length;
    if (this.length > this.limit) return done(new S3Error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size"));
    this.md5.update(chunk);
    this.sha256.update(chunk);
    for (const checksum of this.checksums) checksum.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback) {
    const checksums = Object.fromEntries(this.checksums.map((c) => [c.algorithm, c.digest().toString("base64")]));
    this.results = { md5: this.md5.digest(), sha256Hex: this.sha256.digest("hex"), checksums };
    done();
  }
}

const incomplete = () => new S3Error(400, "IncompleteBody", "The request body terminated unexpectedly");

/**
 * Decodes `Content-Encoding: aws-chunked` (the SDK's STREAMING-UNSIGNED-PAYLOAD-TRAILER): chunks of
 * `<hex size>[;extensions]\r\n<bytes>\r\n`, a last chunk of size 0, then trailer lines
 * `name:value\r\n` and an empty line. Passes on the decoded bytes and keeps the trailers.
 */
export class AwsChunkedDecoder extends Transform {
  readonly trailers = new Map<string, string>();
  private pending: Buffer = Buffer.alloc(0);
  private remaining = 0;
  private state: "size" | "data" | "data-end" | "trailers" | "done" = "size";

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    try {
      this.consume();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  private line(): string | undefined {
    const end = this.pending.indexOf("\r\n");
    if (end < 0) {
      if (this.pending.length > 4096) throw incomplete();
      return undefined;
    }
    const text = this.pending.subarray(0, end).toString("latin1");
    this.pending = this.pending.subarray(end + 2);
    return text;
  }

  // The states of the encoding, in order; each step eats what it can of `pending`.
  private consume() {
    for (;;) {
      if (this.state === "size") {
        const line = this.line();
        if (line === undefined) return;
        const size = line.split(";")[0]!.trim();
        if (!/^[0-9a-fA-F]{1,16}$/.test(size))
          throw new S3Error(400, "InvalidChunkSizeError", "Only the last chunk is allowed to have a size less than 8192 bytes");
        this.remaining = parseInt(size, 16);
        this.state = this.remaining === 0 ? "trailers" : "data";
      } else if (this.state === "data") {
        if (this.pending.length === 0) return;
        const take = this.pending.subarray(0, this.remaining);
        this.pending = this.pending.subarray(take.length);
        this.remaining -= take.length;
        this.push(take);
        if (this.remaining === 0) this.state = "data-end";
      } else if (this.state === "data-end") {
        if (this.pending.length < 2) return;
        if (this.pending[0] !== 13 || this.pending[1] !== 10) throw incomplete();
        this.pending = this.pending.subarray(2);
        this.state = "size";
      } else if (this.state === "trailers") {
        const line = this.line();
        if (line === undefined) return;
        if (line === "") {
          this.state = "done";
          continue;
        }
        const at = line.indexOf(":");
        if (at <= 0)
          throw new S3Error(
            400,
            "MalformedTrailerError",
            "The request contained trailing data that was not well-formed or did not conform to our published schema.",
          );
        this.trailers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
      } else {
        if (this.pending.length > 0) throw incomplete();
        return;
      }
    }
  }

  override _flush(done: TransformCallback) {
    // The SDK ends the trailer section with one CRLF after the last trailer; the empty line may be absent.
    if (this.state === "trailers" && this.pending.length === 0) this.state = "done";
    done(this.state === "done" ? null : incomplete());
  }
}
