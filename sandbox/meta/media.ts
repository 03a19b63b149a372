import { createHash, randomBytes } from "node:crypto";
import type { Request } from "express";
import { fail, ok, unsupported, type GraphResult } from "./graph-common";
import { invalidParam, missing, type MediaKind } from "./message-rules";
import { parseMultipart } from "./multipart";
import type { PhoneNumber } from "./state";
import { randomNumericId, unixSeconds } from "./util";

const KB = 1024;
const MB = 1024 * KB;

/** Meta's supported media (media reference): MIME type → largest size, per message type. */
export const MEDIA_LIMITS: Record<MediaKind, Record<string, number>> = {
  image: { "image/jpeg": 5 * MB, "image/png": 5 * MB },
  video: { "video/mp4": 16 * MB, "video/3gpp": 16 * MB },
  audio: { "audio/aac": 16 * MB, "audio/amr": 16 * MB, "audio/mpeg": 16 * MB, "audio/mp4": 16 * MB, "audio/ogg": 16 * MB },
  document: {
    "text/plain": 100 * MB,
    "application/pdf": 100 * MB,
    "application/msword": 100 * MB,
    "application/vnd.ms-excel": 100 * MB,
    "application/vnd.ms-powerpoint": 100 * MB,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": 100 * MB,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": 100 * MB,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": 100 * MB,
  },
  // Animated stickers 500 KB, static ones 100 KB.
  sticker: { "image/webp": 500 * KB },
};
const STATIC_STICKER_LIMIT = 100 * KB;

/** The largest upload body the route reads: the largest file and the multipart framing around it. */
export const MEDIA_BODY_LIMIT = 100 * MB + 64 * KB;

/** Media kept in memory (uploads and inbound samples together): the oldest go first past either bound. */
const KEEP_MEDIA = 500;
const KEEP_BYTES = 512 * MB;

export interface StoredMedia {
  id: string;
  phoneNumberId: string;
  wabaId: string;
  /** As Meta answers it, with parameters ("audio/ogg; codecs=opus"). */
  mimeType: string;
  /** Hex in GET /{media-id}; webhooks carry the same digest in base64. */
  sha256: string;
  fileSize: number;
  fileName?: string;
  animated: boolean;
  bytes: Buffer;
  /** The download URL's secret part. */
  hash: string;
  createdAt: number;
}

const baseType = (mime: string) => mime.split(";")[0]!.trim().toLowerCase();

/** The message type a MIME type is sent as (image/webp: a sticker). */
export function kindOf(mime: string): MediaKind | undefined {
  const type = baseType(mime);
  return (Object.keys(MEDIA_LIMITS) as MediaKind[]).find((kind) => MEDIA_LIMITS[kind][type] !== undefined);
}

/** An animated WebP: a VP8X chunk with the animation flag. */
const isAnimatedWebp = (bytes: Buffer) => bytes.length > 21 && bytes.toString("latin1", 12, 16) === "VP8X" && (bytes[20]! & 0x02) !== 0;

const mediaError = (text: string) =>
  fail(400, 131053, "(#131053) Media upload error", { errorData: { messaging_product: "whatsapp", details: text } });

/**
 * The Cloud API's media store: uploads (POST /{phone-number-id}/media), the inbound samples the
 * sandbox makes for simulated customer media, GET and DELETE /{media-id}, and the bytes at the
 * download URL. Kept in memory only: a restart forgets every media id, as Meta's expire.
 */
export class MediaDesk {
  private readonly media = new Map<string, StoredMedia>();
  private bytesHeld = 0;

  constructor(private readonly options: { publicPath: string; now: () => number }) {}

  get(id: unknown): StoredMedia | undefined {
    return typeof id === "string" ? this.media.get(id) : undefined;
  }

  /** POST /{phone-number-id}/media: multipart with messaging_product=whatsapp, type and file → {id}. */
  upload(req: Request, phone: PhoneNumber): GraphResult {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const form = parseMultipart(body, req.get("content-type"));
    if (!form) return invalidParam("Invalid parameter", "The body must be multipart/form-data with messaging_product, type and file.");
    if (form.fields.get("messaging_product") === undefined) return invalidParam("The parameter messaging_product is required.");
    if (form.fields.get("messaging_product") !== "whatsapp") return invalidParam("Param messaging_product must be 'whatsapp'");
    const file = form.files.get("file");
    if (!file) return invalidParam("The parameter file is required.");
    const mime = form.fields.get("type") || file.contentType;
    if (!mime) return missing("type");
    const kind = kindOf(mime);
    if (!kind)
      return invalidParam(
        `Param file must be a file with one of the following types: ${Object.values(MEDIA_LIMITS)
          .flatMap((types) => Object.keys(types))
          .join(", ")}. Received file of type '${baseType(mime).slice(0, 80)}'.`,
      );
    if (file.bytes.length === 0) return mediaError("The uploaded file is empty.");
    const animated = kind === "sticker" && isAnimatedWebp(file.bytes);
    const limit = kind === "sticker" && !animated ? STATIC_STICKER_LIMIT : MEDIA_LIMITS[kind][baseType(mime)]!;
    if (file.bytes.length > limit)
      return mediaError(
        `${kind === "sticker" ? (animated ? "Animated sticker" : "Static sticker") : baseType(mime)} files can be ${limit} bytes at most; this one has ${file.bytes.length}.`,
      );
    // The request's buffer holds the whole body: keep a copy of the file's bytes only.
    const stored = this.add(phone, mime, Buffer.from(file.bytes), { fileName: file.fileName, animated });
    return ok({ id: stored.id });
  }

  /** A generated sample for a simulated customer's media message. */
  addInbound(phone: PhoneNumber, input: { mimeType: string; bytes: Buffer; fileName?: string; animated?: boolean }): StoredMedia {
    return this.add(phone, input.mimeType, input.bytes, { fileName: input.fileName, animated: !!input.animated });
  }

  /** GET /{media-id}[?phone_number_id=] → {messaging_product, url, mime_type, sha256, file_size, id}; file_size a string, as Meta's description has it. */
  node(req: Request, media: StoredMedia): GraphResult {
    const scoped = this.scope(req, media);
    if (scoped) return scoped;
    const origin = `${req.protocol}://${req.get("host") ?? "localhost"}`;
    return ok({
      messaging_product: "whatsapp",
      url: this.url(media, origin),
      mime_type: media.mimeType,
      sha256: media.sha256,
      file_size: String(media.fileSize),
      id: media.id,
    });
  }

  /** DELETE /{media-id}[?phone_number_id=] → {success: true}; the id and its URL stop working. */
  remove(req: Request, media: StoredMedia): GraphResult {
    const scoped = this.scope(req, media);
    if (scoped) return scoped;
    this.drop(media);
    return ok({ success: true });
  }

  /** The media a download URL names, when its hash matches. */
  file(mid: unknown, hash: unknown): StoredMedia | undefined {
    const media = this.get(mid);
    return media && typeof hash === "string" && hash === media.hash ? media : undefined;
  }

  /**
   * A media id in a message: it must be one this sandbox issued for the sending number (else 100,
   * subcode 33, as for any unknown object), and of a type the message type takes (else 131053).
   */
  checkSend(phone: PhoneNumber, ref: { kind: MediaKind; id: string; where: string }): GraphResult | undefined {
    const media = this.media.get(ref.id);
    if (!media || media.phoneNumberId !== phone.id)
      return fail(400, 100, "(#100) Invalid parameter", {
        subcode: 33,
        errorData: {
          messaging_product: "whatsapp",
          details: `${ref.where}['id'] ${ref.id} is not a media id uploaded for this phone number (or it was deleted).`,
        },
      });
    if (MEDIA_LIMITS[ref.kind][baseType(media.mimeType)] === undefined)
      return mediaError(`Media of type ${baseType(media.mimeType)} can't be sent as ${ref.kind}.`);
    return undefined;
  }

  /** Download URL, shaped like Meta's lookaside URL (valid while the media exists). */
  url(media: StoredMedia, origin: string) {
    const query = new URLSearchParams({ mid: media.id, ext: String(unixSeconds(this.options.now())), hash: media.hash });
    return `${origin}${this.options.publicPath}/lookaside/whatsapp_business/attachments/?${query.toString()}`;
  }

  reset() {
    this.media.clear();
    this.bytesHeld = 0;
  }

  /** The optional phone_number_id must be the media's number: another number's media is unknown to it. */
  private scope(req: Request, media: StoredMedia): GraphResult | undefined {
    const scoped = typeof req.query.phone_number_id === "string" ? req.query.phone_number_id : undefined;
    return scoped !== undefined && scoped !== media.phoneNumberId ? unsupported(req.method, media.id) : undefined;
  }

  private add(phone: PhoneNumber, mimeType: string, bytes: Buffer, extra: { fileName?: string; animated: boolean }): StoredMedia {
    let id = randomNumericId();
    while (this.media.has(id)) id = randomNumericId();
    const media: StoredMedia = {
      id,
      phoneNumberId: phone.id,
      wabaId: phone.wabaId,
      mimeType,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      fileSize: bytes.length,
      ...(extra.fileName ? { fileName: extra.fileName.slice(0, 240) } : {}),
      animated: extra.animated,
      bytes,
      hash: randomBytes(18).toString("base64url"),
      createdAt: this.options.now(),
    };
    this.media.set(id, media);
    this.bytesHeld += bytes.length;
    this.prune();
    return media;
  }

  private drop(media: StoredMedia) {
    if (this.media.delete(media.id)) this.bytesHeld -= media.fileSize;
  }

  private prune() {
    for (const oldest of this.media.values()) {
      if (this.media.size <= KEEP_MEDIA && this.bytesHeld <= KEEP_BYTES) return;
      this.drop(oldest);
    }
  }
}

/** A digest in the form inbound webhooks carry it (base64). */
export const webhookSha256 = (media: StoredMedia) => Buffer.from(media.sha256, "hex").toString("base64");
