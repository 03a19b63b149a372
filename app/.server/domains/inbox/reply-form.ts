import { discardUploadedMedia, storeUploadedMedia, type MediaFileView, mediaKindOf } from "../messaging";
import { MultipartError, MultipartReader, multipartBoundary } from "../../infrastructure/http/multipart";
import { refuseInbox } from "./actions";
import { isRefusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/** The largest attachment the inbox sends: WhatsApp's limit for video and audio (images 5 MB, checked as it streams). */
export const INBOX_ATTACHMENT_MAX_BYTES = 16 * 1024 * 1024;
const FORM_FRAMING = 64 * 1024;
const FIELD_MAX_BYTES = 20 * 1024;
const FILE_FIELD = "attachment";

export interface ReplyForm {
  fields: Map<string, string>;
  attachment: (MediaFileView & { kind: "image" | "video" | "audio" | "document" | "sticker" }) | null;
}

/**
 * The composer's multipart form: its text fields (each bounded), and the attachment streamed to
 * storage under its type's limit (the inbox's 16 MB at most). A refused or broken form answers an
 * inbox refusal at the attachment and keeps nothing it stored.
 */
export async function readReplyForm(organizationId: string, request: Request): Promise<ReplyForm> {
  const boundary = multipartBoundary(request.headers.get("content-type"));
  if (!boundary) throw refuseInbox(400, m.inbox_form_unreadable(), "attachment");
  const reader = new MultipartReader(request.body, boundary, { maxBytes: INBOX_ATTACHMENT_MAX_BYTES + FORM_FRAMING, maxParts: 16 });
  const fields = new Map<string, string>();
  let attachment: ReplyForm["attachment"] = null;
  try {
    for (let part = await reader.next(); part; part = await reader.next()) {
      if (part.fileName !== undefined) {
        // A file input with no file chosen sends an empty part without a name.
        if (part.name !== FILE_FIELD || part.fileName === "") continue;
        if (attachment) throw refuseInbox(400, m.inbox_form_one_file(), "attachment");
        const stored = await storeUploadedMedia(organizationId, {
          declaredType: part.contentType,
          fileName: part.fileName,
          chunks: reader.chunks(),
        });
        const kind = mediaKindOf(stored.mimeType);
        if (!kind) {
          await discardUploadedMedia(organizationId, stored.id);
          throw refuseInbox(415, m.inbox_form_file_type(), "attachment");
        }
        attachment = { ...stored, kind };
        continue;
      }
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of reader.chunks()) {
        size += chunk.byteLength;
        if (size > FIELD_MAX_BYTES) throw refuseInbox(413, m.inbox_form_too_long(), "body");
        chunks.push(chunk);
      }
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.includes("\u0000")) throw refuseInbox(400, m.inbox_form_bad_character(), "body");
      fields.set(part.name, text);
    }
    return { fields, attachment };
  } catch (error) {
    if (attachment) await discardUploadedMedia(organizationId, attachment.id);
    // The browser is still sending: read the rest (bounded by the limit) so it gets the answer.
    if (!(error instanceof MultipartError)) await drain(reader);
    const refusal = isRefusal(error, "inbox")
      ? error
      : isRefusal(error, "media")
        ? refuseInbox(error.status === 404 ? 400 : error.status, error.message, "attachment")
        : error instanceof MultipartError
          ? error.tooLarge
            ? refuseInbox(413, m.inbox_attachment_too_big({ max: INBOX_ATTACHMENT_MAX_BYTES / 1024 / 1024 }), "attachment")
            : refuseInbox(400, m.inbox_form_unreadable(), "attachment")
          : null;
    if (!refusal) throw error;
    refusal.values = Object.fromEntries(
      [...fields].filter(([name]) => name !== "intent").map(([name, value]) => [name, value.slice(0, 5000)]),
    );
    throw refusal;
  }
}

async function drain(reader: MultipartReader) {
  try {
    while (await reader.next());
  } catch {
    /* malformed or over the limit: the answer is decided already */
  }
}
