import { describe, expect, it } from "vitest";
import { decideMediaType, sniffMediaTypes } from "./media-types";

const hex = (text: string, tail = 64) => Buffer.concat([Buffer.from(text, "hex"), Buffer.alloc(tail, 1)]);
const ascii = (text: string, tail = 64) => Buffer.concat([Buffer.from(text, "latin1"), Buffer.alloc(tail, 1)]);
const ftyp = (brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from(`ftyp${brand}`), Buffer.alloc(40)]);
const webp = (chunk: string, flags = 0) => {
  const head = Buffer.concat([Buffer.from("RIFF\0\0\0\0WEBP"), Buffer.from(chunk), Buffer.alloc(20)]);
  head[20] = flags;
  return head;
};

describe("media types from a file's first bytes", () => {
  it("recognise each of Meta's types", () => {
    expect(sniffMediaTypes(hex("ffd8ffe0"))).toEqual(["image/jpeg"]);
    expect(sniffMediaTypes(hex("89504e470d0a1a0a"))).toEqual(["image/png"]);
    expect(sniffMediaTypes(webp("VP8 "))).toEqual(["image/webp"]);
    expect(sniffMediaTypes(ftyp("isom"))).toEqual(["video/mp4", "audio/mp4"]);
    expect(sniffMediaTypes(ftyp("3gp5"))).toEqual(["video/3gpp"]);
    expect(sniffMediaTypes(ftyp("M4A "))).toEqual(["audio/mp4"]);
    expect(sniffMediaTypes(ascii("OggS"))).toEqual(["audio/ogg"]);
    expect(sniffMediaTypes(ascii("#!AMR\n"))).toEqual(["audio/amr"]);
    expect(sniffMediaTypes(ascii("ID3"))).toEqual(["audio/mpeg", "audio/aac"]);
    expect(sniffMediaTypes(hex("fffb9064"))).toEqual(["audio/mpeg"]);
    expect(sniffMediaTypes(hex("fff15080"))).toEqual(["audio/aac"]);
    expect(sniffMediaTypes(ascii("%PDF-1.7"))).toEqual(["application/pdf"]);
    expect(sniffMediaTypes(hex("d0cf11e0a1b11ae1"))).toContain("application/msword");
    expect(sniffMediaTypes(hex("504b0304"))).toContain("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(sniffMediaTypes(Buffer.from("Jina,Simu\r\nAmina,0712345678\n"))).toEqual(["text/plain"]);
    expect(sniffMediaTypes(Buffer.from("Habari za asubuhi — karibu ✓", "utf8"))).toEqual(["text/plain"]);
    expect(sniffMediaTypes(ascii("GIF89a"))).toEqual([]);
    expect(sniffMediaTypes(hex("4d5a9000"))).toEqual([]);
  });

  it("decide the type: the bytes rule, a declared type must agree, an Office container needs its declared type", () => {
    expect(decideMediaType("image/jpg", hex("ffd8ffe0"))).toMatchObject({
      ok: true,
      mimeType: "image/jpeg",
      kind: "image",
      maxBytes: 5 * 1024 * 1024,
    });
    expect(decideMediaType("", hex("89504e470d0a1a0a"))).toMatchObject({ ok: true, mimeType: "image/png" });
    expect(decideMediaType("audio/mp4", ftyp("isom"))).toMatchObject({ ok: true, mimeType: "audio/mp4", kind: "audio" });
    expect(decideMediaType("application/octet-stream", ftyp("isom"))).toMatchObject({ ok: true, mimeType: "video/mp4", kind: "video" });
    expect(decideMediaType("application/vnd.ms-excel", hex("d0cf11e0a1b11ae1"))).toMatchObject({
      ok: true,
      kind: "document",
      maxBytes: 100 * 1024 * 1024,
    });
    expect(decideMediaType("application/octet-stream", hex("504b0304"))).toMatchObject({ ok: false, code: "unsupported_media_type" });
    expect(decideMediaType("image/png", hex("ffd8ffe0"))).toMatchObject({ ok: false, code: "media_type_mismatch" });
    expect(decideMediaType("text/plain", hex("4d5a9000"))).toMatchObject({ ok: false, code: "media_type_mismatch" });
    expect(decideMediaType("image/gif", ascii("GIF89a"))).toMatchObject({ ok: false, code: "unsupported_media_type" });
  });

  it("give stickers their limit: 100 KB static, 500 KB animated", () => {
    expect(decideMediaType("image/webp", webp("VP8 "))).toMatchObject({ ok: true, kind: "sticker", animated: false, maxBytes: 100 * 1024 });
    expect(decideMediaType("image/webp", webp("VP8X", 0x02))).toMatchObject({
      ok: true,
      kind: "sticker",
      animated: true,
      maxBytes: 500 * 1024,
    });
  });
});
