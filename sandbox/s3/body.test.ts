import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { AwsChunkedDecoder, Checksum } from "./body";
import { parseRange } from "./objects";

async function decode(pieces: Buffer[]) {
  const decoder = new AwsChunkedDecoder();
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(pieces),
    decoder,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        out.push(chunk);
        done();
      },
    }),
  );
  return { body: Buffer.concat(out).toString(), trailers: Object.fromEntries(decoder.trailers) };
}

describe("aws-chunked", () => {
  const encoded = Buffer.from("5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:abc=\r\n\r\n");

  test("decodes whatever the boundaries of the pieces it arrives in", async () => {
    for (const size of [1, 2, 3, 7, encoded.length]) {
      const pieces = [];
      for (let at = 0; at < encoded.length; at += size) pieces.push(encoded.subarray(at, at + size));
      expect(await decode(pieces)).toEqual({ body: "hello world", trailers: { "x-amz-checksum-crc32": "abc=" } });
    }
  });

  test("refuses a body cut short and a chunk without its CRLF", async () => {
    await expect(decode([encoded.subarray(0, 20)])).rejects.toMatchObject({ code: "IncompleteBody" });
    await expect(decode([Buffer.from("5\r\nhelloXX0\r\n\r\n")])).rejects.toMatchObject({ code: "IncompleteBody" });
    await expect(decode([Buffer.from("zz\r\n")])).rejects.toMatchObject({ code: "InvalidChunkSizeError" });
  });
});

describe("checksums", () => {
  // The check values of the CRC catalogue (the CRC of the ASCII digits "123456789").
  test("CRC32 and CRC32C of 123456789", () => {
    const digits = Buffer.from("123456789");
    expect(Buffer.from(Checksum.of("crc32", digits), "base64").toString("hex")).toBe("cbf43926");
    expect(Buffer.from(Checksum.of("crc32c", digits), "base64").toString("hex")).toBe("e3069283");
  });
});

describe("Range", () => {
  test("reads S3's forms and refuses what lies past the end", () => {
    expect(parseRange("bytes=0-4", 10)).toEqual({ start: 0, end: 4 });
    expect(parseRange("bytes=5-", 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange("bytes=-3", 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange("bytes=8-100", 10)).toEqual({ start: 8, end: 9 });
    expect(parseRange("bytes=0-1,4-5", 10)).toBeUndefined();
    expect(parseRange("pages=1-2", 10)).toBeUndefined();
    expect(() => parseRange("bytes=10-12", 10)).toThrow(expect.objectContaining({ code: "InvalidRange", status: 416 }));
    expect(() => parseRange("bytes=0-0", 0)).toThrow(expect.objectContaining({ code: "InvalidRange" }));
  });
});
