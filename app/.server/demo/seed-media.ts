import { deflateSync } from "node:zlib";
import { pngChunk } from "@jumbe/sandbox/meta/png";

/**
 * Small real files for the demo inbox, made here rather than kept in the repository: an image a
 * browser shows, a voice note it plays (two seconds of silence), and a one-page PDF it opens.
 */

/** A true-colour PNG of `width`×`height`, each pixel's colour from `colour(x, y)`. */
function png(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) row.set(colour(x, y), 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.concat(rows))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A 240×320 PNG that looks like a phone's screenshot of an M-Pesa message: a green bar on top, a
 * white bubble with grey lines of "text" on a pale background.
 */
export function demoScreenshotPng(): Buffer {
  return png(240, 320, (x, y) => {
    if (y < 40) return [0x1b, 0x8a, 0x3a];
    if (x > 16 && x < 224 && y > 70 && y < 230) {
      const line = (y - 90) % 22;
      const lineEnd = 200 - ((Math.floor((y - 90) / 22) * 37) % 90);
      if (y >= 90 && y < 220 && line < 8 && x > 30 && x < lineEnd) return [0x9e, 0xa7, 0xb0];
      return [0xff, 0xff, 0xff];
    }
    return [0xe8, 0xf5, 0xe9];
  });
}

/**
 * A 400×210 PNG like a shop's offer poster: a green field under a yellow sun, a white fertiliser
 * bag with a green band, and a red price tag.
 */
export function demoPosterPng(): Buffer {
  return png(400, 210, (x, y) => {
    if (x >= 250 && x < 360 && y >= 130 && y < 175) return [0xd3, 0x2f, 0x2f];
    if (x >= 60 && x < 180 && y >= 40 && y < 190) return y >= 90 && y < 120 ? [0x2e, 0x7d, 0x32] : [0xfa, 0xfa, 0xfa];
    if ((x - 320) ** 2 + (y - 50) ** 2 < 900) return [0xfb, 0xc0, 0x2d];
    return y < 120 ? [0xbb, 0xde, 0xfb] : [0x66, 0xbb, 0x6a];
  });
}

// Ogg's CRC: polynomial 0x04c11db7, not reflected, starting at 0 (RFC 3533).
const OGG_CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let r = n << 24;
  for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
  return r >>> 0;
});

function oggCrc(bytes: Buffer) {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ OGG_CRC_TABLE[((crc >>> 24) & 0xff) ^ b]!) >>> 0;
  return crc;
}

function oggPage(packets: Buffer[], options: { sequence: number; granule: bigint; first?: boolean; last?: boolean }) {
  const segments: number[] = [];
  for (const packet of packets) {
    let left = packet.length;
    while (left >= 255) {
      segments.push(255);
      left -= 255;
    }
    segments.push(left);
  }
  const header = Buffer.alloc(27);
  header.write("OggS", 0, "latin1");
  header[5] = (options.first ? 0x02 : 0) | (options.last ? 0x04 : 0);
  header.writeBigInt64LE(options.granule, 6);
  header.writeUInt32LE(0x4a554d42, 14); // the stream's serial number: "JUMB"
  header.writeUInt32LE(options.sequence, 18);
  header[26] = segments.length;
  const page = Buffer.concat([header, Buffer.from(segments), ...packets]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/** A WhatsApp-style voice note: Ogg Opus, mono, `seconds` of silence (RFC 7845). */
export function demoVoiceNoteOgg(seconds = 2): Buffer {
  const preSkip = 312;
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "latin1");
  head[8] = 1; // version
  head[9] = 1; // one channel
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(48_000, 12);
  const vendor = Buffer.from("Jumbe demo", "utf8");
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write("OpusTags", 0, "latin1");
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  // A 20 ms CELT frame of silence (TOC 0xF8: fullband, mono, one frame).
  const frames = Math.round(seconds * 50);
  const silence = Array.from({ length: frames }, () => Buffer.from([0xf8, 0xff, 0xfe]));
  return Buffer.concat([
    oggPage([head], { sequence: 0, granule: 0n, first: true }),
    oggPage([tags], { sequence: 1, granule: 0n }),
    oggPage(silence, { sequence: 2, granule: BigInt(frames * 960), last: true }),
  ]);
}

/** A one-page PDF with a few lines of text (Helvetica), its cross-reference table counted exactly. */
export function demoPdf(lines: string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const content = [
    "BT",
    "/F1 18 Tf",
    "40 340 Td",
    `(${escape(lines[0] ?? "")}) Tj`,
    "/F1 12 Tf",
    ...lines.slice(1).flatMap((line) => ["0 -24 Td", `(${escape(line)}) Tj`]),
    "ET",
  ].join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 400] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
