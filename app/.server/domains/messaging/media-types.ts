import type { MediaKind } from "./content";
import { m } from "~/paraglide/messages";

/**
 * The media WhatsApp takes, as Meta's media reference lists them (supported media types and sizes):
 * each MIME type, the message kind it is sent as, and its largest size. Stickers are WebP: 100 KB
 * static, 500 KB animated.
 */
const KB = 1024;
const MB = 1024 * KB;

/** Each type's `label` names a file of it in a sentence ("a JPEG image"), in the request's language. */
export const MEDIA_TYPES: Record<string, { kind: MediaKind; maxBytes: number; label: () => string }> = {
  "image/jpeg": { kind: "image", maxBytes: 5 * MB, label: m.validation_send_label_jpeg },
  "image/png": { kind: "image", maxBytes: 5 * MB, label: m.validation_send_label_png },
  "video/mp4": { kind: "video", maxBytes: 16 * MB, label: m.validation_send_label_mp4_video },
  "video/3gpp": { kind: "video", maxBytes: 16 * MB, label: m.validation_send_label_3gpp },
  "audio/aac": { kind: "audio", maxBytes: 16 * MB, label: m.validation_send_label_aac },
  "audio/amr": { kind: "audio", maxBytes: 16 * MB, label: m.validation_send_label_amr },
  "audio/mpeg": { kind: "audio", maxBytes: 16 * MB, label: m.validation_send_label_mp3 },
  "audio/mp4": { kind: "audio", maxBytes: 16 * MB, label: m.validation_send_label_m4a },
  "audio/ogg": { kind: "audio", maxBytes: 16 * MB, label: m.validation_send_label_ogg },
  "text/plain": { kind: "document", maxBytes: 100 * MB, label: m.validation_send_label_text },
  "application/pdf": { kind: "document", maxBytes: 100 * MB, label: m.validation_send_label_pdf },
  "application/msword": { kind: "document", maxBytes: 100 * MB, label: m.validation_send_label_word },
  "application/vnd.ms-excel": { kind: "document", maxBytes: 100 * MB, label: m.validation_send_label_excel },
  "application/vnd.ms-powerpoint": { kind: "document", maxBytes: 100 * MB, label: m.validation_send_label_powerpoint },
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": {
    kind: "document",
    maxBytes: 100 * MB,
    label: m.validation_send_label_word,
  },
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": {
    kind: "document",
    maxBytes: 100 * MB,
    label: m.validation_send_label_excel,
  },
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": {
    kind: "document",
    maxBytes: 100 * MB,
    label: m.validation_send_label_powerpoint,
  },
  "image/webp": { kind: "sticker", maxBytes: 500 * KB, label: m.validation_send_label_webp },
};
export const STATIC_STICKER_MAX_BYTES = 100 * KB;
/** The largest file of any type: the upload's body limit is this and the form's framing. */
export const LARGEST_MEDIA = 100 * MB;

/** Bytes to look at before deciding what a file is. */
export const SNIFF_BYTES = 512;

const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "audio/mp3": "audio/mpeg",
  "audio/x-aac": "audio/aac",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "audio/opus": "audio/ogg",
};

/** A MIME type in the form the table uses: lower case, no parameters, common aliases resolved. */
export const baseMimeType = (type: string) => {
  const base = type.split(";")[0]!.trim().toLowerCase();
  return ALIASES[base] ?? base;
};

export const mediaKindOf = (mimeType: string): MediaKind | undefined => MEDIA_TYPES[baseMimeType(mimeType)]?.kind;

const OLE = ["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"];
const OOXML = [
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
];

const starts = (head: Buffer, hex: string, at = 0) => head.subarray(at, at + hex.length / 2).equals(Buffer.from(hex, "hex"));
const ascii = (head: Buffer, at: number, text: string) => head.toString("latin1", at, at + text.length) === text;

/**
 * What the first bytes of a file say it is: the supported types it can be, most likely first. A
 * container shared by several types (MP4's ftyp, Office's OLE and ZIP) answers all of them; bytes
 * that are none of Meta's types answer [].
 */
export function sniffMediaTypes(head: Buffer): string[] {
  if (starts(head, "ffd8ff")) return ["image/jpeg"];
  if (starts(head, "89504e470d0a1a0a")) return ["image/png"];
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WEBP")) return ["image/webp"];
  if (ascii(head, 4, "ftyp")) {
    const brand = head.toString("latin1", 8, 12);
    if (brand.startsWith("3g")) return ["video/3gpp"];
    if (/^M4[ABP] $/.test(brand)) return ["audio/mp4"];
    return ["video/mp4", "audio/mp4"];
  }
  if (ascii(head, 0, "OggS")) return ["audio/ogg"];
  if (ascii(head, 0, "#!AMR")) return ["audio/amr"];
  if (ascii(head, 0, "ID3")) return ["audio/mpeg", "audio/aac"];
  // MPEG audio frames start with 11 set bits; layer 00 is ADTS (AAC), anything else MP3.
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0) return (head[1]! & 0x06) === 0 ? ["audio/aac"] : ["audio/mpeg"];
  if (ascii(head, 0, "%PDF-")) return ["application/pdf"];
  if (starts(head, "d0cf11e0a1b11ae1")) return OLE;
  if (starts(head, "504b0304")) return OOXML;
  if (head.length && looksLikeText(head)) return ["text/plain"];
  return [];
}

/** No NUL and no control characters but tabs, line breaks and form feeds: text, in any ASCII-based encoding. */
function looksLikeText(head: Buffer) {
  for (const byte of head)
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) return false;
  return true;
}

/** An animated WebP: an extended (VP8X) file with the animation flag. */
export const isAnimatedWebp = (head: Buffer) => head.length > 20 && ascii(head, 12, "VP8X") && (head[20]! & 0x02) !== 0;

export type MediaTypeDecision =
  | { ok: true; mimeType: string; kind: MediaKind; maxBytes: number; animated: boolean }
  | { ok: false; code: "unsupported_media_type" | "media_type_mismatch"; message: string };

/**
 * The type a file is stored and sent as: what its first bytes show, checked against the type the
 * client declared. A declared type the bytes contradict is refused rather than trusted; with no
 * declared type (or application/octet-stream) the bytes decide where they can.
 */
export function decideMediaType(declaredType: string, head: Buffer): MediaTypeDecision {
  const declared = baseMimeType(declaredType);
  const undeclared = declared === "" || declared === "application/octet-stream";
  if (!undeclared && !MEDIA_TYPES[declared])
    return {
      ok: false,
      code: "unsupported_media_type",
      message: m.validation_send_type_unsupported({ type: declared.slice(0, 80), supported: m.validation_send_supported_types() }),
    };
  const candidates = sniffMediaTypes(head);
  let mimeType: string | undefined;
  if (undeclared) {
    if (candidates === OLE || candidates === OOXML)
      return {
        ok: false,
        code: "unsupported_media_type",
        message: m.validation_send_office_ambiguous({ candidates: candidates.join(", ") }),
      };
    mimeType = candidates[0];
    if (!mimeType)
      return {
        ok: false,
        code: "unsupported_media_type",
        message: m.validation_send_type_unknown({ supported: m.validation_send_supported_types() }),
      };
  } else if (candidates.includes(declared)) mimeType = declared;
  else {
    const actual = candidates[0];
    const label = MEDIA_TYPES[declared]!.label();
    return {
      ok: false,
      code: "media_type_mismatch",
      message: actual
        ? m.validation_send_type_mismatch_actual({ declared, label, actualLabel: MEDIA_TYPES[actual]!.label(), actual })
        : m.validation_send_type_mismatch({ declared, label }),
    };
  }
  const rule = MEDIA_TYPES[mimeType]!;
  const animated = rule.kind === "sticker" && isAnimatedWebp(head);
  const maxBytes = rule.kind === "sticker" && !animated ? STATIC_STICKER_MAX_BYTES : rule.maxBytes;
  return { ok: true, mimeType, kind: rule.kind, maxBytes, animated };
}

/** "5 MB", "100 KB": a limit as people read it. */
export const formatLimit = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / KB} KB`);
