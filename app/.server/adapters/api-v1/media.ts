import { z } from "zod";
import { MultipartError, MultipartReader } from "../../infrastructure/http/multipart";
import {
  deleteMediaFile,
  discardUploadedMedia,
  getMediaFile,
  refuseMedia,
  storeUploadedMedia,
  type MediaFileView,
} from "../../domains/messaging/media-files";
import { ApiProblem } from "./problem";
import { oncePerKey } from "./idempotency";
import { hashRequest } from "../../domains/messaging/queue";
import { isRefusal } from "../../infrastructure/refusal";

/** POST, GET and DELETE /api/v1/media: the tenant's files for sending by mediaId (decision 023). */

export const MediaFile = z
  .object({
    id: z.uuid().describe("Send it as mediaId: image, video, audio, document or sticker, or a template's media header."),
    mimeType: z.string().describe("The type Jumbe found in the file's bytes (it decides the message kind: image/webp is a sticker)."),
    size: z.int().describe("Bytes."),
    sha256: z.string().describe("The SHA-256 of the bytes, in hex."),
    fileName: z.string().nullable().describe("The name the upload gave the file, without any path."),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "MediaFile" });

export const MediaIdParams = z.object({ id: z.string().describe("The file's id (a UUID) from uploading it.") });

/** The part of the form that carries the file. */
export const FILE_FIELD = "file";

/**
 * The media store's refusals in the API's `{ code, message }`. Bytes that contradict their declared
 * type are an upload the endpoint does not take: unsupported_media_type, as the catalogue has 415
 * (media_type_mismatch is a file that does not fit a message, 422).
 */
const asProblem = (error: unknown) =>
  isRefusal(error, "media")
    ? new ApiProblem(error.status, error.status === 415 ? "unsupported_media_type" : error.code, error.message)
    : error;

/** Reads what is left of a refused body (bounded by the reader's limit) so the answer reaches the client whole. */
async function drain(reader: MultipartReader) {
  try {
    while (await reader.next());
  } catch {
    /* malformed or over the limit: the answer is decided already */
  }
}

/**
 * The upload: one part named `file` (other fields, as Meta's own `messaging_product` and `type`,
 * are read past and ignored), streamed to storage as it arrives; a second file is refused.
 */
export async function uploadApiMedia(
  organizationId: string,
  upload: { body: ReadableStream<Uint8Array> | null; boundary: string; maxBytes: number },
  idempotencyKey?: string,
  onReplay?: () => void,
): Promise<MediaFileView> {
  const stored = await storeMultipartUpload(organizationId, upload);
  if (!idempotencyKey) return stored;
  // The key is decided once the bytes are in: a repeat's copy is discarded and the first file answered.
  return oncePerKey(
    {
      organizationId,
      key: idempotencyKey,
      requestHash: hashRequest({
        endpoint: "POST /api/v1/media",
        sha256: stored.sha256,
        mimeType: stored.mimeType,
        fileName: stored.fileName,
      }),
      thing: "file",
    },
    {
      create: async () => stored,
      remember: (file) => file,
      replay: async (first: MediaFileView) => {
        onReplay?.();
        await discardUploadedMedia(organizationId, stored.id);
        return first;
      },
    },
  ).catch(async (error: unknown) => {
    await discardUploadedMedia(organizationId, stored.id);
    throw error;
  });
}

async function storeMultipartUpload(
  organizationId: string,
  upload: { body: ReadableStream<Uint8Array> | null; boundary: string; maxBytes: number },
): Promise<MediaFileView> {
  const reader = new MultipartReader(upload.body, upload.boundary, { maxBytes: upload.maxBytes, maxParts: 8 });
  let stored: MediaFileView | undefined;
  try {
    for (let part = await reader.next(); part; part = await reader.next()) {
      if (part.name !== FILE_FIELD) continue;
      if (stored) throw refuseMedia(400, "invalid_request", `Send one file per request: the form has a second part named ${FILE_FIELD}.`);
      if (part.fileName === undefined)
        throw refuseMedia(400, "invalid_request", `The part named ${FILE_FIELD} must be a file (with a filename), not a text field.`);
      stored = await storeUploadedMedia(organizationId, {
        declaredType: part.contentType,
        fileName: part.fileName,
        chunks: reader.chunks(),
      });
    }
    if (!stored)
      throw refuseMedia(
        400,
        "invalid_request",
        `No file in the form: send it as the multipart/form-data part named ${FILE_FIELD} (curl -F "${FILE_FIELD}=@photo.jpg").`,
      );
    return stored;
  } catch (error) {
    if (stored) await discardUploadedMedia(organizationId, stored.id);
    if (error instanceof MultipartError) {
      if (error.tooLarge)
        throw new ApiProblem(413, "payload_too_large", `The request body is over ${Math.floor(upload.maxBytes / 1024 / 1024)} MB.`);
      throw new ApiProblem(400, "invalid_request", `The multipart/form-data body is malformed: ${error.message}`);
    }
    if (isRefusal(error, "media")) await drain(reader);
    throw asProblem(error);
  }
}

export async function getApiMedia(organizationId: string, id: string) {
  try {
    return await getMediaFile(organizationId, id);
  } catch (error) {
    throw asProblem(error);
  }
}

export async function deleteApiMedia(organizationId: string, id: string) {
  try {
    await deleteMediaFile(organizationId, id);
  } catch (error) {
    throw asProblem(error);
  }
  return undefined;
}
